package visitor

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// The share-link cookie holds the link's key encrypted and authenticated
// (AES-256-GCM) under a key derived from the site's visitor key, with the
// site's id as associated data: the cookie of one site is useless on
// another, a copied cookie reveals no key that could be shared onwards, and
// regenerating the visitor key voids every share cookie of the site. The key
// is sealed rather than hashed because the link's state is checked again on
// every request, by key.

var errNoKey = errors.New("visitor: the site has no visitor key to seal with")

func aead(visitorKey string) (cipher.AEAD, error) {
	if visitorKey == "" {
		return nil, errNoKey
	}
	m := hmac.New(sha256.New, []byte(visitorKey))
	m.Write([]byte("folio share-link cookie v1"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func seal(visitorKey, siteID, shareKey string) (string, error) {
	a, err := aead(visitorKey)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, a.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(a.Seal(nonce, nonce, []byte(shareKey), []byte(siteID))), nil
}

func unseal(visitorKey, siteID, value string) (string, bool) {
	a, err := aead(visitorKey)
	if err != nil {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(b) < a.NonceSize()+a.Overhead() {
		return "", false
	}
	key, err := a.Open(nil, b[:a.NonceSize()], b[a.NonceSize():], []byte(siteID))
	if err != nil {
		return "", false
	}
	return string(key), true
}
