package otel

import (
	"maps"
	"sync"
	"sync/atomic"
)

// cache is a map read without a lock, for what the middleware builds once
// per kind of request (span names and options, attribute sets): a call
// looks its key up in a plain Go map (the key type's own hash function, not
// sync.Map's hashing of an interface), which a store replaces, in the manner
// of sync.Map: new entries go to a locked dirty map, promoted to the read map
// once as many lookups missed it as it holds entries, so that storing n
// entries copies O(n) of them in all. It stops growing at maxAttrSets
// entries (names a peer makes up could grow it without end), after which
// each is built again, and it keeps no key longer than maxAttrKeyLen bytes (a
// 4 MiB method name is a peer's doing too), so it holds at most a few MiB
// whatever the peers send.
type cache[K comparable, V any] struct {
	read    atomic.Pointer[map[K]V]
	pending atomic.Bool // dirty holds entries read does not
	mu      sync.Mutex
	dirty   map[K]V // nil, or read's entries and those stored since
	misses  int
	n       int // entries stored
}

const (
	maxAttrSets   = 4096
	maxAttrKeyLen = 512
)

func (c *cache[K, V]) load(k K) (V, bool) {
	if m := c.read.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v, true
		}
	}
	if !c.pending.Load() {
		var zero V
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty == nil {
		// Promoted since pending was read: read holds every entry. (A
		// promotion of the nil dirty map here left read a nil map, which
		// the next store cloned into a nil map and assigned to.)
		if m := c.read.Load(); m != nil {
			v, ok := (*m)[k]
			return v, ok
		}
		var zero V
		return zero, false
	}
	v, ok := c.dirty[k]
	if c.misses++; c.misses >= len(c.dirty) {
		c.promote()
	}
	return v, ok
}

// store keeps v for k, whose keyLen is the length of its strings, unless
// the cache is full, the key too long, or k already there.
func (c *cache[K, V]) store(k K, keyLen int, v V) {
	if keyLen > maxAttrKeyLen {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n >= maxAttrSets {
		return
	}
	if c.dirty == nil {
		if m := c.read.Load(); m != nil {
			if _, ok := (*m)[k]; ok {
				return
			}
			c.dirty = maps.Clone(*m)
		} else {
			c.dirty = make(map[K]V)
		}
	}
	if _, ok := c.dirty[k]; ok {
		return
	}
	c.dirty[k] = v
	c.n++
	c.pending.Store(true)
	if len(c.dirty) <= 8 {
		c.promote() // the first few entries, as a program starts: at once
	}
}

// promote makes dirty the read map; c.mu is held.
func (c *cache[K, V]) promote() {
	m := c.dirty
	c.read.Store(&m)
	c.dirty, c.misses = nil, 0
	c.pending.Store(false)
}

// len is the number of entries.
func (c *cache[K, V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// each calls f with every entry.
func (c *cache[K, V]) each(f func(K, V)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.dirty
	if m == nil {
		if r := c.read.Load(); r != nil {
			m = *r
		}
	}
	for k, v := range m {
		f(k, v)
	}
}
