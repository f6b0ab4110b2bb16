package generator

import (
	"crypto/sha256"
	"encoding/hex"
)

// inputLog records what emission read besides the key's inputs. A nil log
// records nothing.
type inputLog struct {
	files map[string]string // file name -> hex SHA-256 of its content, "" if unreadable
	names map[string]bool   // package-level name looked up -> whether declared
}

func (l *inputLog) readFile(name string, src []byte, err error) {
	if l == nil {
		return
	}
	if l.files == nil {
		l.files = map[string]string{}
	}
	l.files[name] = contentDigest(src, err)
}

// contentDigest is the hex SHA-256 of a file read as src, or "" when reading
// it failed with err.
func contentDigest(src []byte, err error) string {
	if err != nil {
		return ""
	}
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

func (l *inputLog) lookedUp(name string, found bool) {
	if l == nil {
		return
	}
	if l.names == nil {
		l.names = map[string]bool{}
	}
	l.names[name] = found
}
