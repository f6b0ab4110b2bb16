package schema

import (
	"crypto/sha256"
	"encoding/hex"
)

// InputLog records what emission read besides the key's inputs. A nil log
// records nothing.
type InputLog struct {
	Files map[string]string // file name -> hex SHA-256 of its content, "" if unreadable
	Names map[string]bool   // package-level name looked up -> whether declared
}

func (l *InputLog) readFile(name string, src []byte, err error) {
	if l == nil {
		return
	}
	if l.Files == nil {
		l.Files = map[string]string{}
	}
	l.Files[name] = ContentDigest(src, err)
}

// ContentDigest is the hex SHA-256 of a file read as src, or "" when reading
// it failed with err.
func ContentDigest(src []byte, err error) string {
	if err != nil {
		return ""
	}
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

func (l *InputLog) LookedUp(name string, found bool) {
	if l == nil {
		return
	}
	if l.Names == nil {
		l.Names = map[string]bool{}
	}
	l.Names[name] = found
}
