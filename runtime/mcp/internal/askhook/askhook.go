// Package askhook joins package mcpserver, which links no cryptography, to package
// ask, through which a handler asks the client for input. Only a server that
// asks ever seals a 2026-07-28 requestState (AES-GCM), so the ciphers come
// with package ask (through package askcrypto, which installs them here) and
// a server that never imports it neither links nor initialises them.
package askhook

// CallKey is the context key under which a handler's context holds its call,
// which package ask asks the client through.
type CallKey struct{}

// AEAD is what sealing a requestState takes of a crypto/cipher.AEAD.
type AEAD interface {
	NonceSize() int
	Overhead() int
	Seal(dst, nonce, plaintext, additionalData []byte) []byte
	Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error)
}

// Crypto is the cryptography package mcpserver needs once a handler asks the client
// for input.
type Crypto interface {
	// NewAEAD returns AES-GCM under key (16, 24 or 32 bytes).
	NewAEAD(key []byte) (AEAD, error)
	// Sum256 returns the SHA-256 of data.
	Sum256(data []byte) [32]byte
	// Rand fills b with random bytes.
	Rand(b []byte) error
}

var installed Crypto

// Install makes c the Crypto that Installed returns. It is called from a
// package's initialisation, before any server runs.
func Install(c Crypto) { installed = c }

// Installed returns the installed Crypto, nil in a program that does not
// import package ask.
func Installed() Crypto { return installed }
