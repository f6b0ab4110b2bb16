package runtime

import "context"

// The handler slots and the queue of a Conn: which incoming message runs when,
// and what the reader does when every slot is taken.

// admitJob starts j on a free handler slot, or queues it behind the running handlers;
// it returns false if the connection stopped meanwhile.
//
// Only when the queue is full does the reader wait, for a handler to finish: that is
// the backpressure on a peer sending more than MaxInflight+MaxQueued at once. Waiting
// would never end if every slot's handler were blocked on a call to the peer, whose
// response the reader itself must read. So in that case, and only then, the reader
// reads on instead: a request that does not fit is answered with a "server busy"
// error and a notification is dropped (logged), which keeps memory bounded.
func (c *Conn) admitJob(j job) bool {
	c.qmu.Lock()
	for {
		switch {
		case c.stopped:
			c.qmu.Unlock()
			return false
		case c.running < c.opts.MaxInflight:
			// The queue is empty: a job waits only while every slot is taken, and a
			// finishing handler takes the next job before giving up its slot.
			c.running++
			// Adding under qmu, only while not stopped, keeps Add from racing
			// Close's Wait even when Close does not wait for the reader.
			c.handlers.Add(1)
			c.qmu.Unlock()
			if j.kind != batchJob && c.opts.Inline != nil && c.opts.Inline(methodName(j.m.method)) {
				c.run(j)
				c.release()
				return true
			}
			c.hand(j)
			return true
		case c.qlen < len(c.queue) && (c.qlen == 0 || c.qbytes+j.size <= c.opts.MaxMessageSize):
			c.queue[(c.qhead+c.qlen)%len(c.queue)] = j
			c.qlen++
			c.qbytes += j.size
			c.qmu.Unlock()
			return true
		case c.queue == nil && c.opts.MaxQueued > 0:
			c.queue = make([]job, c.opts.MaxQueued)
			continue
		case c.waiting >= c.running:
			c.qmu.Unlock()
			c.refuse(&j)
			return true
		}
		c.rwait = true
		c.qmu.Unlock()
		c.noteState()
		select {
		case <-c.wake:
		case <-c.closing:
			return false
		}
		c.qmu.Lock()
	}
}

// noteState calls the stateChanged test seam, if set.
func (c *Conn) noteState() {
	if f := c.opts.stateChanged; f != nil {
		f()
	}
}

// wakeReader tells the reader waiting in admitJob to look again; qmu is held.
func (c *Conn) wakeReader() {
	if c.rwait {
		c.rwait = false
		c.wake <- struct{}{} // buffered, and only the reader receives
	}
}

// next returns the queued job to run on the slot of the job that just finished, or
// gives up the slot.
func (c *Conn) next() (job, bool) {
	c.qmu.Lock()
	if c.qlen == 0 || c.stopped {
		c.releaseLocked()
		c.qmu.Unlock()
		c.handlers.Done()
		return job{}, false
	}
	j := c.queue[c.qhead]
	c.queue[c.qhead] = job{}
	c.qhead = (c.qhead + 1) % len(c.queue)
	c.qlen--
	c.qbytes -= j.size
	c.wakeReader()
	c.qmu.Unlock()
	return j, true
}

// release gives up a slot.
func (c *Conn) release() {
	c.qmu.Lock()
	c.releaseLocked()
	c.qmu.Unlock()
	c.handlers.Done()
}

func (c *Conn) releaseLocked() {
	c.running--
	if c.running == 0 && c.idle != nil {
		// Shutdown waits: nothing runs, and nothing is queued since a job waits
		// only while every slot is taken.
		c.stopped = true
		close(c.idle)
		c.idle = nil
	}
}

// refuse disposes of j, which fits neither a slot nor the queue while every handler
// waits for the peer (see admitJob).
func (c *Conn) refuse(j *job) {
	switch {
	case j.kind == batchJob:
		c.logger.Warn("jsonrpc: refused a batch: every handler is waiting for the peer and the queue is full")
		c.writeError(nullID, errBusy)
	case j.m.id != nil:
		c.writeError(j.m.id, errBusy)
	default:
		c.logger.Warn("jsonrpc: dropped a notification: every handler is waiting for the peer and the queue is full",
			"method", methodName(j.m.method))
	}
}

// cancelQueued marks the queued request whose raw id is id cancelled, so that its
// handler runs with a context already cancelled, and reports whether there was one.
func (c *Conn) cancelQueued(id ID) bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	for i := range c.qlen {
		j := &c.queue[(c.qhead+i)%len(c.queue)]
		if j.kind == requestJob && !j.cancelled && id.is(j.m.id) {
			j.cancelled = true
			return true
		}
	}
	return false
}

// callingBack counts the handler serving ctx, if it is one of c's, as waiting for the
// peer from the first of its calls until the last ends (calledBack), and wakes the
// reader if now every slot waits. It returns that handler's incoming, or nil. The
// elements of a batch count one each, so a batch whose elements call back together
// can make the reader see every slot waiting while another handler still runs: a
// request may then be refused as busy that could have waited, never the reverse.
func (c *Conn) callingBack(ctx context.Context) *incoming {
	in := incomingFrom(ctx)
	if in == nil || in.srv.conn != c {
		return nil
	}
	c.qmu.Lock()
	in.calls++
	if in.calls == 1 {
		c.waiting++
		if c.waiting >= c.running {
			c.wakeReader()
		}
	}
	c.qmu.Unlock()
	return in
}

// calledBack ends what callingBack began.
func (c *Conn) calledBack(in *incoming) {
	c.qmu.Lock()
	in.calls--
	if in.calls == 0 {
		c.waiting--
	}
	c.qmu.Unlock()
}
