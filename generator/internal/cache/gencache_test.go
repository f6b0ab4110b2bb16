package cache

import (
	"bytes"
	"maps"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// FuzzDecodeGenEntry: a payload that passed its checksum but is malformed
// anyway is refused, never a panic, and what decodes survives encoding and
// decoding again.
func FuzzDecodeGenEntry(f *testing.F) {
	log := &schema.InputLog{Files: map[string]string{"/dep/a.go": "ab12"}, Names: map[string]bool{"readX": true, "readY": false}}
	f.Add(EncodeEntry(log, map[string][]byte{"/p/out.go": []byte("package p\n"), "/p/s.json": nil}))
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		log, files, err := DecodeEntry(b)
		if err != nil {
			return
		}
		log2, files2, err := DecodeEntry(EncodeEntry(log, files))
		if err != nil || !maps.Equal(log.Files, log2.Files) || !maps.Equal(log.Names, log2.Names) || !maps.EqualFunc(files, files2, bytes.Equal) {
			t.Fatalf("a decoded entry does not survive encoding and decoding again (%v)", err)
		}
	})
}
