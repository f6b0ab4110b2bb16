package httpguard

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultBodyTimeout is how long a request body may take to arrive unless
// a handler's options say otherwise.
const DefaultBodyTimeout = 30 * time.Second

// ErrBodyTimeout is returned (wrapped) by ReadBody for a body that did not
// arrive in time.
var ErrBodyTimeout = errors.New("the request body did not arrive in time")

// IsJSONContentType reports whether the Content-Type header value ct names
// application/json; parameters (charset=utf-8, say) are allowed.
func IsJSONContentType(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.EqualFold(strings.TrimSpace(ct), "application/json")
}

// ReadBody reads r's body: at most limit bytes (more is an
// *http.MaxBytesError), within timeout (ErrBodyTimeout), so that a client
// sending its body slowly holds a connection for no longer. The deadline is
// the connection's read deadline, set through http.ResponseController
// (never later than the http.Server's ReadTimeout would allow) and cleared
// once the whole body is read, so that it bounds the upload and not the
// call that follows. A timeout of 0 means DefaultBodyTimeout; a negative one, no
// deadline. The returned slice belongs to the caller.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	if r.Body == nil || r.Body == http.NoBody {
		return []byte{}, nil
	}
	if timeout == 0 {
		timeout = DefaultBodyTimeout
	}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 && (timeout < 0 || srv.ReadTimeout < timeout) {
		timeout = srv.ReadTimeout
	}
	var rc *http.ResponseController
	if timeout > 0 {
		rc = http.NewResponseController(w)
		// Unsupported (a ResponseWriter that is not net/http's): no deadline.
		if rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
			rc = nil
		}
	}
	b, err := read(limited(w, r, limit), r.ContentLength)
	switch {
	case err == nil && rc != nil:
		_ = rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays: what net/http reads of the body after the
		// handler fails at once, and the connection is closed.
		err = errors.Join(ErrBodyTimeout, err)
	}
	return b, err
}

// limited returns r's body limited to limit bytes. A body whose announced
// size is under the limit and small enough for read to take at once needs
// no http.MaxBytesReader (an allocation): read takes that many bytes and
// fails on one more, as the limit would not.
func limited(w http.ResponseWriter, r *http.Request, limit int64) io.Reader {
	if n := r.ContentLength; n >= 0 && n < limit && n <= maxPrealloc {
		return r.Body
	}
	return http.MaxBytesReader(w, r.Body, limit)
}

// maxPrealloc is the largest announced body size allocated before reading.
const maxPrealloc = 64 << 10

func read(body io.Reader, n int64) ([]byte, error) {
	if n < 0 || n > maxPrealloc {
		return readAll(body)
	}
	// The size is known (and small enough that a client announcing a body
	// it never sends costs little): read into a slice of that size,
	// then make sure nothing follows (read into the byte past it: a byte
	// array of its own would escape through the Read, an allocation).
	b := make([]byte, n, n+1)
	if _, err := io.ReadFull(body, b); err != nil {
		return nil, err
	}
	if m, err := body.Read(b[n : n+1]); m > 0 {
		return nil, errors.New("body longer than its Content-Length")
	} else if err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// readAll reads a body of unknown length, growing through a pooled scratch
// buffer so the returned slice is allocated once, at its final size.
func readAll(rd io.Reader) ([]byte, error) {
	bp := readBufPool.Get().(*[]byte)
	buf := (*bp)[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			putReadBuf(bp, buf)
			return nil, err
		}
	}
	out := append(make([]byte, 0, len(buf)), buf...)
	putReadBuf(bp, buf)
	return out, nil
}

var readBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func putReadBuf(bp *[]byte, buf []byte) {
	if cap(buf) <= 256<<10 {
		*bp = buf[:0]
		readBufPool.Put(bp)
	}
}
