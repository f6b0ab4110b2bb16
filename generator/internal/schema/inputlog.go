package schema

import (
	"crypto/sha256"
	"encoding/hex"
)

// InputLog records what a run read besides the loaded package, which the
// output cache's key covers: files read from disk and package-level names
// looked up. The cache layer stores it with the output and uses the entry
// only while it still holds. A nil log records nothing.
type InputLog struct {
	Files map[string]string // file name -> hex SHA-256 of its content, "" if unreadable
	Names map[string]bool   // package-level name looked up -> whether declared
}

// ReadFile records that the run read the file name as src, or failed to
// read it with err. Any stage that reads a file the output depends on
// must record it here.
func (l *InputLog) ReadFile(name string, src []byte, err error) {
	if l == nil {
		return
	}
	if l.Files == nil {
		l.Files = map[string]string{}
	}
	l.Files[name] = ContentDigest(src, err)
}

// Listed records the digest of something the run read that is not a
// file's content (a directory's listing), under name.
func (l *InputLog) Listed(name, digest string) {
	if l == nil {
		return
	}
	if l.Files == nil {
		l.Files = map[string]string{}
	}
	l.Files[name] = digest
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

// LookedUp records that the run looked up the package-level name and found
// it declared, or not.
func (l *InputLog) LookedUp(name string, found bool) {
	if l == nil {
		return
	}
	if l.Names == nil {
		l.Names = map[string]bool{}
	}
	l.Names[name] = found
}
