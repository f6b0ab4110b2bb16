package runtime

import "context"

// track gives an incoming request its cancelable context and makes it findable by id.
func (c *Conn) track(in *incoming) {
	in.Context, in.cancel = context.WithCancel(c.base)
	if id := in.req.ID.raw; id != "" && id != "null" {
		c.mu.Lock()
		c.inflight[id] = in
		c.mu.Unlock()
	}
}

func (c *Conn) untrack(in *incoming) {
	if id := in.req.ID.raw; id != "" && id != "null" {
		c.mu.Lock()
		if c.inflight[id] == in {
			delete(c.inflight, id)
		}
		c.mu.Unlock()
	}
	in.cancel()
}

// CancelRequest cancels the context of the in-flight incoming request with the given id
// and reports whether there was one.
func (c *Conn) CancelRequest(id ID) bool {
	c.mu.Lock()
	in := c.inflight[id.raw]
	c.mu.Unlock()
	if in == nil {
		return false
	}
	in.cancel()
	return true
}

// cancelNotification handles an incoming CancelMethod notification; it reports whether
// m was one.
func (c *Conn) cancelNotification(m *message) bool {
	name := c.opts.CancelMethod
	if name == "" || len(m.method) != len(name)+2 || string(m.method[1:len(m.method)-1]) != name {
		return false
	}
	obj, ok := openObject(m.params)
	for ok {
		key, val, more := obj.nextMember()
		if !more {
			break
		}
		if string(unescapeKey(key)) == "id" {
			c.CancelRequest(ID{raw: string(val)})
			break
		}
	}
	return true
}
