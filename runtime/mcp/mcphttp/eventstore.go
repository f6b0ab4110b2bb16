package mcphttp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// EventStore keeps the events of a legacy session's Streamable HTTP streams,
// so that a client whose stream broke can resume it (GET with Last-Event-ID)
// and receive what it missed, exactly once. The Handler calls Append for
// every event it sends, before sending it, including the empty priming event
// that opens a stream. Implementations must be safe for concurrent use.
type EventStore interface {
	// Append stores msg as the next event of stream (in session) and returns
	// its event id, which must identify the stream (so it can be resumed
	// from) and be unique in the session. msg is empty for a priming event.
	// The store may keep msg.
	Append(ctx context.Context, session, stream string, msg []byte) (id string, err error)
	// Replay calls send for every event of the stream lastEventID belongs to
	// that was stored after it, in order, skipping empty (priming) events,
	// and returns that stream's name; ErrUnknownEvent if the id is not known
	// (evicted, wrong session, malformed). An error from send ends Replay
	// and is returned.
	Replay(ctx context.Context, session, lastEventID string, send func(id string, msg []byte) error) (stream string, err error)
	// DeleteSession forgets a session's events.
	DeleteSession(ctx context.Context, session string) error
}

// ErrUnknownEvent is returned by EventStore.Replay for an event id it does
// not know: malformed, of another session, or evicted. A client resuming
// from it gets 400.
var ErrUnknownEvent = errors.New("mcphttp: unknown event id")

// MemoryEventStore is an EventStore in memory, bounded per session: when a
// session's events take more than its limit, the oldest are evicted, and a
// client can no longer resume from them. It keeps a copy of each message
// (the caller may reuse msg once Append returns). Its event ids are
// "<stream>_<sequence>", the sequence counting the session's events.
type MemoryEventStore struct {
	max int

	mu       sync.Mutex
	sessions map[string]*memSession
	watchers map[string]map[*func()]struct{} // Watch's, by session
}

// memSession is one session's events, oldest first. An event's stream
// name and message are copied into the session's chunks of bytes, one
// after the other, and the event is where they are: the events and their
// bytes hold no pointer, so the garbage collector has nothing of them to
// scan, however many a session keeps (a stored copy per message, and its
// stream's name, were two objects to mark each), and the caller need not
// copy a message it reuses (call.run). The events are in blocks: a block or
// a chunk is never copied or grown once made, so a session's events cost
// their own memory as the session fills its bound (a slice grown by append
// allocated several times it, copying it on the way), and the block and the
// chunk its oldest events leave are kept for the next (none is allocated
// once the bound is reached). The first blocks are small, for the sessions
// that send few events. Sequence numbers are consecutive: an event's is its
// place after the oldest's, so it is not stored.
type memSession struct {
	blocks [][]memEvent // blocks[0][head:], then the others, are live
	head   int
	n      int    // live events
	first  uint64 // the oldest live event's sequence number
	spare  []memEvent

	chunks     [][]byte // the live events' bytes, oldest first
	chunk0     uint64   // the number of chunks[0], counting from the session's first
	spareChunk []byte

	size int    // bytes held by the live events, counting overhead
	seq  uint64 // the last sequence number given out
}

// memEvent is an event: its stream's name, then its message, at off in
// the chunk numbered chunk.
type memEvent struct {
	chunk          uint64
	off, slen, len uint32
}

// memEventOverhead is what an event costs besides its message, so that a
// flood of empty events is bounded too.
const memEventOverhead = 64

// The blocks' sizes in events: the first memBlockMin, each next one twice
// its predecessor's, up to memBlockMax (8,160 bytes); the chunks' sizes in
// bytes, likewise from memChunkMin to memChunk, unless an event needs more.
const (
	memBlockMin = 4
	memBlockMax = 8160 / 24
	memChunkMin = 256
	memChunk    = 8 << 10
)

// maxMemEvent is the largest message a MemoryEventStore keeps.
const maxMemEvent = 1<<31 - 1<<20

var errMemEventSize = errors.New("mcphttp: an event of 2 GiB or more")

// push appends the event of msg on stream as the newest.
func (s *memSession) push(stream string, msg []byte) {
	need := len(stream) + len(msg)
	last := len(s.chunks) - 1
	if last < 0 || cap(s.chunks[last])-len(s.chunks[last]) < need {
		var c []byte
		size := memChunkMin
		if last >= 0 {
			size = min(2*cap(s.chunks[last]), memChunk)
		}
		if cap(s.spareChunk) >= need {
			c, s.spareChunk = s.spareChunk, nil
		} else {
			c = make([]byte, 0, max(need, size))
		}
		s.chunks = append(s.chunks, c)
		last++
	}
	c := s.chunks[last]
	e := memEvent{chunk: s.chunk0 + uint64(last), off: uint32(len(c)), slen: uint32(len(stream)), len: uint32(len(msg))}
	c = append(c, stream...)
	s.chunks[last] = append(c, msg...)

	lb := len(s.blocks) - 1
	if lb < 0 || len(s.blocks[lb]) == cap(s.blocks[lb]) {
		var b []memEvent
		switch {
		case cap(s.spare) > 0:
			b, s.spare = s.spare, nil
		case lb < 0:
			b = make([]memEvent, 0, memBlockMin)
		default:
			b = make([]memEvent, 0, min(2*cap(s.blocks[lb]), memBlockMax))
		}
		s.blocks = append(s.blocks, b)
		lb++
	}
	s.blocks[lb] = append(s.blocks[lb], e)
	if s.n == 0 {
		s.first = s.seq
	}
	s.n++
}

// pop evicts the oldest event, whose size it returns; an event stays.
func (s *memSession) pop() int {
	b := s.blocks[0]
	size := int(b[s.head].len) + memEventOverhead
	s.head++
	s.n--
	s.first++
	if s.head == cap(b) && len(s.blocks) > 1 {
		// The block is spent: the newest events' block is another.
		if cap(b) > cap(s.spare) {
			s.spare = b[:0]
		}
		copy(s.blocks, s.blocks[1:])
		s.blocks[len(s.blocks)-1] = nil
		s.blocks = s.blocks[:len(s.blocks)-1]
		s.head = 0
	}
	// The chunks before the oldest event's are spent too.
	for oldest := s.blocks[0][s.head].chunk; s.chunk0 < oldest; s.chunk0++ {
		if c := s.chunks[0]; cap(c) == memChunk {
			s.spareChunk = c[:0]
		}
		copy(s.chunks, s.chunks[1:])
		s.chunks[len(s.chunks)-1] = nil
		s.chunks = s.chunks[:len(s.chunks)-1]
	}
	return size
}

// at returns the live event of sequence number seq, if it is live.
func (s *memSession) at(seq uint64) (blk, i int, ok bool) {
	if seq < s.first || seq-s.first >= uint64(s.n) {
		return 0, 0, false
	}
	i = int(seq-s.first) + s.head
	for blk = 0; i >= len(s.blocks[blk]); blk++ {
		i -= len(s.blocks[blk])
	}
	return blk, i, true
}

// bytes returns e's stream name and message, in s's chunks.
func (s *memSession) bytes(e memEvent) (stream, msg []byte) {
	c := s.chunks[e.chunk-s.chunk0]
	stream = c[e.off : e.off+e.slen]
	return stream, c[e.off+e.slen : e.off+e.slen+e.len]
}

// NewMemoryEventStore returns a MemoryEventStore keeping up to
// maxBytesPerSession bytes of events per session (0 means 1 MiB). The newest
// event is always kept, whatever its size.
func NewMemoryEventStore(maxBytesPerSession int) *MemoryEventStore {
	if maxBytesPerSession <= 0 {
		maxBytesPerSession = 1 << 20
	}
	return &MemoryEventStore{max: maxBytesPerSession, sessions: make(map[string]*memSession)}
}

// Append stores msg as the next event of stream and returns its id.
func (m *MemoryEventStore) Append(_ context.Context, session, stream string, msg []byte) (string, error) {
	seq, err := m.appendSeq(session, stream, msg)
	if err != nil {
		return "", err
	}
	return eventID(stream, seq), nil
}

// appendSeq is Append, returning the event's sequence number: its id is
// eventID(stream, seq), made by a caller that needs it (appendEventID
// writes it where it goes, with no string made).
func (m *MemoryEventStore) appendSeq(session, stream string, msg []byte) (uint64, error) {
	if len(msg) > maxMemEvent {
		return 0, errMemEventSize
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sessions[session]
	if s == nil {
		s = &memSession{}
		m.sessions[session] = s
	}
	s.seq++
	s.push(stream, msg)
	s.size += len(msg) + memEventOverhead
	for s.size > m.max && s.n > 1 {
		s.size -= s.pop()
	}
	for w := range m.watchers[session] {
		(*w)()
	}
	return s.seq, nil
}

// Watch calls wake after each event appended to session's streams, which
// makes a MemoryEventStore a SharedEventStore for the handlers of one
// process. wake runs with the store's lock held, and must not block.
func (m *MemoryEventStore) Watch(_ context.Context, session string, wake func()) (func(), error) {
	w := &wake
	m.mu.Lock()
	if m.watchers == nil {
		m.watchers = make(map[string]map[*func()]struct{})
	}
	if m.watchers[session] == nil {
		m.watchers[session] = make(map[*func()]struct{})
	}
	m.watchers[session][w] = struct{}{}
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.watchers[session], w)
		if len(m.watchers[session]) == 0 {
			delete(m.watchers, session)
		}
		m.mu.Unlock()
	}, nil
}

// eventID is the id of the event seq of stream.
func eventID(stream string, seq uint64) string {
	return string(appendEventID(make([]byte, 0, len(stream)+1+20), stream, seq))
}

// appendEventID appends the id of the event seq of stream.
func appendEventID(b []byte, stream string, seq uint64) []byte {
	b = append(b, stream...)
	b = append(b, '_')
	return strconv.AppendUint(b, seq, 10)
}

// parseEventID splits an id eventID made.
func parseEventID(id string) (stream string, seq uint64, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i < 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(id[i+1:], 10, 64)
	if err != nil || seq == 0 {
		return "", 0, false
	}
	return id[:i], seq, true
}

// Replay sends the events of lastEventID's stream stored after it. The
// events are copied out first, so send runs without the store's lock.
func (m *MemoryEventStore) Replay(_ context.Context, session, lastEventID string, send func(id string, msg []byte) error) (string, error) {
	stream, seq, ok := parseEventID(lastEventID)
	if !ok {
		return "", ErrUnknownEvent
	}
	type replayed struct {
		seq      uint64
		from, to int // in buf
	}
	var (
		out []replayed
		buf []byte
	)
	m.mu.Lock()
	s := m.sessions[session]
	if s == nil {
		m.mu.Unlock()
		return "", ErrUnknownEvent
	}
	blk, i, ok := s.at(seq)
	if !ok {
		m.mu.Unlock()
		return "", ErrUnknownEvent
	}
	if name, _ := s.bytes(s.blocks[blk][i]); string(name) != stream {
		m.mu.Unlock()
		return "", ErrUnknownEvent
	}
	// The messages are copied out: their chunks are reused once evicted.
	i++
	for ; blk < len(s.blocks); blk, i = blk+1, 0 {
		for _, e := range s.blocks[blk][i:] {
			seq++
			if name, msg := s.bytes(e); len(msg) > 0 && string(name) == stream {
				buf = append(buf, msg...)
				out = append(out, replayed{seq, len(buf) - len(msg), len(buf)})
			}
		}
	}
	m.mu.Unlock()
	for _, e := range out {
		if err := send(eventID(stream, e.seq), buf[e.from:e.to:e.to]); err != nil {
			return stream, err
		}
	}
	return stream, nil
}

// DeleteSession forgets the session's events.
func (m *MemoryEventStore) DeleteSession(_ context.Context, session string) error {
	m.mu.Lock()
	delete(m.sessions, session)
	m.mu.Unlock()
	return nil
}

// sessionCount reports how many sessions have events, for tests.
func (m *MemoryEventStore) sessionCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}
