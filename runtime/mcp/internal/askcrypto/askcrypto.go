// Package askcrypto installs the standard library's AES-GCM, SHA-256 and
// random source as the askhook.Crypto of package mcpserver, on import.
package askcrypto

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"

	"github.com/rpcgen/rpcgen/runtime/mcp/internal/askhook"
)

func init() { askhook.Install(stdCrypto{}) }

type stdCrypto struct{}

func (stdCrypto) NewAEAD(key []byte) (askhook.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (stdCrypto) Sum256(data []byte) [32]byte { return sha256.Sum256(data) }

func (stdCrypto) Rand(b []byte) error {
	_, err := rand.Read(b)
	return err
}
