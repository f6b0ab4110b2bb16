package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Bus carries messages between the replicas of one server (processes
// behind a load balancer, each with its own Server): what one replica
// publishes on a topic, every replica subscribed to the topic receives,
// the publisher included. A Server publishes its Changes on one; package
// mcphttp routes a legacy session's messages between replicas on one
// (the answers to the requests a replica sent, cancellations, the end of a
// session). Package ext/redis has one on Redis; MemoryBus connects the
// servers of one process.
type Bus interface {
	// Publish sends msg to every subscriber of topic. Messages one
	// publisher sends on one topic arrive in order. The bus may keep msg.
	Publish(ctx context.Context, topic string, msg []byte) error
	// Subscribe calls f with every message published on topic from now
	// on, in order, on one goroutine, until stop is called. f must not
	// block for long. A bus that loses its connection subscribes again
	// once it is back; what was published meanwhile may be lost.
	Subscribe(topic string, f func(msg []byte)) (stop func(), err error)
}

// Change is a notification a server sends clients outside any request: a
// list_changed, a resources/updated or a log message. A Server announces
// each to its own sessions and listen streams and, through
// ServerOptions.Bus, to every replica's; OnChange hears those made here.
type Change struct {
	// Method is the notification's method.
	Method string `json:"method"`
	// Params are its params (nil for a list_changed).
	Params json.RawMessage `json:"params,omitempty"`
	// Feature is "resources" or "prompts" for their list_changed: only the
	// sessions whose initialize declared it get it. "" for the others.
	Feature string `json:"feature,omitempty"`
	// URI is the resource of a notifications/resources/updated.
	URI string `json:"uri,omitempty"`
	// Level is the level of a notifications/message.
	Level mcp.LogLevel `json:"level,omitempty"`
}

// changesTopic is the Bus topic a Server publishes its Changes on.
const changesTopic = "mcp/changes"

// OnChange makes the server call f with every Change made on it (not those
// other replicas made, which the Bus brings), before it is delivered. A
// transport whose sessions live outside the process (package mcphttp with
// a SessionStore) uses it to store the notification for each session it
// concerns, once, on the replica where it happened. f must not block for
// long.
func (s *Server) OnChange(f func(Change)) {
	for {
		old := s.onChange.Load()
		var hooks []func(Change)
		if old != nil {
			hooks = append(hooks, *old...)
		}
		hooks = append(hooks, f)
		if s.onChange.CompareAndSwap(old, &hooks) {
			return
		}
	}
}

// Bus returns ServerOptions.Bus (nil when none).
func (s *Server) Bus() Bus { return s.opts.Bus }

// announce makes c known: to the OnChange hooks, then to every replica
// through the bus (this one included, when the bus delivers it back), or
// straight to this process's sessions and listen streams without a bus or
// when the bus fails.
func (s *Server) announce(c Change) {
	if hooks := s.onChange.Load(); hooks != nil {
		for _, f := range *hooks {
			f(c)
		}
	}
	if b := s.opts.Bus; b != nil {
		msg, err := json.Marshal(&c)
		if err == nil {
			if err = b.Publish(context.Background(), changesTopic, msg); err == nil {
				return
			}
		}
		s.logger.Warn("mcp: publish a change to the other replicas; delivered here only", "method", c.Method, "err", err)
	}
	s.deliver(c)
}

// listenBus subscribes the server to the Changes of its replicas.
func (s *Server) listenBus() {
	if s.opts.Bus == nil {
		return
	}
	_, err := s.opts.Bus.Subscribe(changesTopic, func(msg []byte) {
		var c Change
		if err := json.Unmarshal(msg, &c); err != nil || c.Method == "" {
			s.logger.Warn("mcp: a malformed change on the bus", "err", err)
			return
		}
		s.deliver(c)
	})
	if err != nil {
		s.logger.Error("mcp: subscribe to the other replicas' changes", "err", err)
	}
}

// MemoryBus is a Bus within one process: the servers (and handlers) of one
// process that share it behave as replicas of one server, which is what
// tests of a multi-replica setup need. Each subscription gets its messages
// on a goroutine of its own, in order, as a networked bus delivers them;
// at most 65536 wait for a subscriber that does not keep up, and more are
// dropped.
type MemoryBus struct {
	mu     sync.Mutex
	topics map[string]map[*memSub]struct{}
}

type memSub struct {
	f       func([]byte)
	mu      sync.Mutex
	queue   [][]byte
	running bool
	stopped bool
}

const memBusQueue = 1 << 16

// NewMemoryBus returns an empty MemoryBus.
func NewMemoryBus() *MemoryBus { return &MemoryBus{topics: make(map[string]map[*memSub]struct{})} }

// Publish queues msg for every subscriber of topic.
func (b *MemoryBus) Publish(_ context.Context, topic string, msg []byte) error {
	b.mu.Lock()
	subs := make([]*memSub, 0, len(b.topics[topic]))
	for sub := range b.topics[topic] {
		subs = append(subs, sub)
	}
	b.mu.Unlock()
	for _, sub := range subs {
		sub.push(msg)
	}
	return nil
}

// Subscribe calls f with the messages of topic until stop.
func (b *MemoryBus) Subscribe(topic string, f func(msg []byte)) (func(), error) {
	sub := &memSub{f: f}
	b.mu.Lock()
	if b.topics[topic] == nil {
		b.topics[topic] = make(map[*memSub]struct{})
	}
	b.topics[topic][sub] = struct{}{}
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.topics[topic], sub)
		if len(b.topics[topic]) == 0 {
			delete(b.topics, topic)
		}
		b.mu.Unlock()
		sub.mu.Lock()
		sub.stopped, sub.queue = true, nil
		sub.mu.Unlock()
	}, nil
}

func (sub *memSub) push(msg []byte) {
	sub.mu.Lock()
	if sub.stopped || len(sub.queue) >= memBusQueue {
		sub.mu.Unlock()
		return
	}
	sub.queue = append(sub.queue, msg)
	start := !sub.running
	sub.running = true
	sub.mu.Unlock()
	if start {
		go sub.run()
	}
}

func (sub *memSub) run() {
	for {
		sub.mu.Lock()
		if len(sub.queue) == 0 || sub.stopped {
			sub.running = false
			sub.mu.Unlock()
			return
		}
		msg := sub.queue[0]
		sub.queue[0] = nil
		sub.queue = sub.queue[1:]
		sub.mu.Unlock()
		sub.f(msg)
	}
}
