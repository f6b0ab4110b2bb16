package emit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"go/format"
	"hash/fnv"
	"runtime"
	"sync"
)

// formatChunk is the least size formatSource cuts a file into pieces at:
// a smaller file is formatted whole, as splitting saves less than it costs.
const formatChunk = 64 << 10

// Where splitTopLevel cuts: a piece is at least pieceMin long, ends where the
// line after it hashes to a multiple of pieceEvery, and is cut anyway at
// the first place it can be past pieceMax. With a top-level item of one to
// three KiB in generated code, pieces are about 40 KiB.
const (
	pieceMin   = 16 << 10
	pieceEvery = 16
	pieceMax   = 256 << 10
)

// FormatSource returns format.Source(src), byte for byte, for src as
// jennifer renders it: a file whose top-level items (each declaration with
// its doc comment) jennifer separates with two empty lines. Formatting is the
// largest step for a big service, and the top-level declarations of a file
// format independently of one another, so a big src is cut into pieces at
// such separators (see splitTopLevel) and the pieces are formatted in
// parallel. Each piece after the first is formatted as a file of its own
// behind a package clause: go/printer keeps at most one empty line between
// declarations and none of its column alignment crosses an empty line, so
// the piece's declarations come out as they do in the whole file, one empty
// line after the one before. When any piece does not format alone (a cut
// that is not between top-level declarations: two empty lines in a raw
// string, say), the whole file is formatted at once, and its error, if any,
// is the error returned.
func FormatSource(src []byte) ([]byte, error) {
	return FormatPieces(src, format.Source)
}

// FormatPieces is formatSource with formatPiece formatting each piece (as
// format.Source would: formatCached looks pieces up in its cache first).
func FormatPieces(src []byte, formatPiece func([]byte) ([]byte, error)) ([]byte, error) {
	// Split even on one core: the format cache keeps pieces, so an edit
	// reformats one of them.
	workers := runtime.GOMAXPROCS(0)
	if len(src) < 2*formatChunk {
		return formatPiece(src)
	}
	pieces := splitTopLevel(src)
	if len(pieces) < 2 {
		return formatPiece(src)
	}
	const clause = "package p\n\n"
	outs := make([][]byte, len(pieces))
	errs := make([]error, len(pieces))
	next := make(chan int, len(pieces))
	for i := range pieces {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(workers, len(pieces)) {
		wg.Go(func() {
			for i := range next {
				piece := pieces[i]
				if i > 0 {
					piece = append([]byte(clause), piece...)
				}
				outs[i], errs[i] = formatPiece(piece)
			}
		})
	}
	wg.Wait()
	size := 0
	for i, out := range outs {
		if errs[i] != nil || (i > 0 && !bytes.HasPrefix(out, []byte(clause))) {
			return format.Source(src)
		}
		size += len(out) + 1
	}
	joined := make([]byte, 0, size)
	for i, out := range outs {
		if i > 0 {
			joined = append(joined, '\n')
			out = out[len(clause):]
		}
		joined = append(joined, out...)
	}
	return joined, nil
}

// splitTopLevel cuts src into pieces at lines that follow two empty lines
// and begin a comment or a declaration, which in jennifer's output begin a
// top-level item. A piece ends with the newline of its last line; the empty
// lines between two pieces are in neither.
//
// Where it cuts depends on the content around the cut, not on the offset:
// at the first such line, pieceMin or more into the piece, whose text
// hashes to a multiple of pieceEvery. So an edit that changes the length of
// one item (a method's doc comment gaining a line) moves no cut but those
// next to it, and the format cache, which keys pieces by their text, still
// holds every other piece.
func splitTopLevel(src []byte) [][]byte {
	sep := []byte("\n\n\n")
	var pieces [][]byte
	start := 0
	for from := start + pieceMin; from < len(src); {
		i := bytes.Index(src[from:], sep)
		if i < 0 {
			break
		}
		i += from
		rest := src[i+len(sep):]
		if !topLevelStart(rest) || (i-start < pieceMax && lineHash(rest)%pieceEvery != 0) {
			from = i + 1
			continue
		}
		pieces = append(pieces, src[start:i+1])
		start = i + len(sep)
		from = start + pieceMin
	}
	return append(pieces, src[start:])
}

// lineHash is the FNV-1a hash of the first line of b.
func lineHash(b []byte) uint32 {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	h := fnv.New32a()
	h.Write(b)
	return h.Sum32()
}

func topLevelStart(line []byte) bool {
	for _, p := range []string{"//", "func ", "type ", "var ", "const "} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// The format cache keeps the formatted form of generated Go source, piece
// by piece as formatSource cuts it, keyed by each piece as jennifer renders
// it. Formatting is the largest step for a big service; when the output
// cache (gencache.go) misses, the rendering is often the same as before
// (the change decided nothing the output shows) or differs in one place (a
// method's doc comment), so a run formats only the pieces it has not seen.
//
// The key is a digest of the unformatted piece and of the Go release whose
// go/format made the entry, so an entry can only ever be what format.Source
// gives for it.

// formatCacheVersion changes whenever the way an entry is made or stored
// changes, so that old entries miss.
const formatCacheVersion = "rpcgen-format-1"

// PieceStore keeps the format cache's entries: the cache layer hands one to
// emitGo. Get reports false for an entry it does not have, or that is
// damaged; Put may be called from several goroutines.
type PieceStore interface {
	Get(key string) ([]byte, bool)
	Put(key string, value []byte)
}

// FormatCached returns formatSource(src), taking each piece formatSource
// formats from pieces when an earlier run stored it there; nil pieces
// means no cache. Caching pieces rather than the whole file means a change
// to one method reformats only the piece holding it.
func FormatCached(src []byte, pieces PieceStore) ([]byte, error) {
	if pieces == nil {
		return FormatSource(src)
	}
	return FormatPieces(src, func(piece []byte) ([]byte, error) {
		key := FormatKey(piece)
		if out, ok := pieces.Get(key); ok {
			return out, nil
		}
		out, err := format.Source(piece)
		if err == nil {
			pieces.Put(key, out)
		}
		return out, err
	})
}

// FormatKey is the format cache's key of a piece of unformatted source.
func FormatKey(src []byte) string {
	h := sha256.New()
	h.Write([]byte(formatCacheVersion + "\x00" + runtime.Version() + "\x00"))
	h.Write(src)
	return hex.EncodeToString(h.Sum(nil))
}
