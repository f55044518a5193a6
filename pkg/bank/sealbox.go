package bank

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// sealBox encrypts what must be kept at rest yet read back (a webhook's
// signing secret, the OAuth signing key) with AES-256-GCM under a key
// derived from jwt_secret: the runtime role reads the tables, never the
// secrets. aad ties a sealed value to its row.
type sealBox struct{ aead cipher.AEAD }

func newSealBox(key []byte) sealBox {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // a 32-byte key always makes a cipher
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return sealBox{aead: gcm}
}

// seal returns nonce || ciphertext.
func (b sealBox) seal(aad, plain []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return b.aead.Seal(nonce, nonce, plain, aad), nil
}

// open decrypts what seal made with the same aad.
func (b sealBox) open(aad, sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed value too short")
	}
	return b.aead.Open(nil, sealed[:n], sealed[n:], aad)
}
