// Package secrets keeps secrets at rest: values the server must read back
// (signing keys, share keys, webhook secrets, OIDC client secrets, Git
// credentials) are sealed with AES-256-GCM under the installation's key, and
// values looked up by equality get an HMAC-SHA256 lookup hash beside their
// ciphertext. Sealed text names its format and its key ("v1:<key id>:…"),
// so a key can be replaced (Rotate) and a wrong key is recognised.
//
// Every sealed column is listed in Columns (columns.go): the first start
// seals the values stored in clear before, and rotation re-seals them all.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// Key is the installation's secret key (FOLIO_SECRET_KEY or the key file).
type Key [KeySize]byte

// NewKey is a fresh random key.
func NewKey() Key {
	var k Key
	if _, err := rand.Read(k[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return k
}

// ParseKey reads a key written as base64 (standard or URL alphabet, padded
// or not) or as 64 hex digits: 32 bytes either way.
func ParseKey(text string) (Key, error) {
	var k Key
	text = strings.TrimSpace(text)
	var raw []byte
	if b, err := hex.DecodeString(text); err == nil && len(text) == 2*KeySize {
		raw = b
	} else {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(text); err == nil {
				raw = b
				break
			}
		}
	}
	if raw == nil {
		return k, errors.New("not base64 or hex")
	}
	if len(raw) != KeySize {
		return k, fmt.Errorf("%d bytes, not %d", len(raw), KeySize)
	}
	copy(k[:], raw)
	return k, nil
}

// String is the key in standard base64, as the key file holds it.
func (k Key) String() string { return base64.StdEncoding.EncodeToString(k[:]) }

// derive is a subkey of k for one use, so that the encryption key, the
// lookup key and the key id never coincide.
func (k Key) derive(use string) []byte {
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte("folio/secrets/v1/" + use))
	return m.Sum(nil)
}

// ID names the key in sealed text (8 hex digits): it tells which key sealed
// a value without revealing anything of the key.
func (k Key) ID() string { return hex.EncodeToString(k.derive("id")[:4]) }

// Errors of Open.
var (
	// ErrNotSealed: the text is not sealed text (a value stored in clear).
	ErrNotSealed = errors.New("not a sealed value")
	// ErrWrongKey: the text was sealed with another key.
	ErrWrongKey = errors.New("sealed with another key")
	// ErrCorrupt: the text names this key but does not open (changed, cut,
	// or moved from another area).
	ErrCorrupt = errors.New("sealed value does not open")
)

// prefix is the format of sealed text; a later format gets v2.
const prefix = "v1:"

// Sealer seals and opens values under one key. It is safe for concurrent
// use.
type Sealer struct {
	id     string
	aead   cipher.AEAD
	lookup []byte
}

// New is the Sealer of key k.
func New(k Key) *Sealer {
	block, err := aes.NewCipher(k.derive("seal"))
	if err != nil {
		panic(err) // 32-byte keys are always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &Sealer{id: k.ID(), aead: aead, lookup: k.derive("lookup")}
}

// KeyID is the id of the Sealer's key.
func (s *Sealer) KeyID() string { return s.id }

// Seal encrypts plaintext for area (the table and column it is stored in,
// e.g. "sites.auth_private_key"): "v1:<key id>:<base64url of nonce and
// ciphertext>". The area is authenticated, so a value copied into another
// column does not open there.
func (s *Sealer) Seal(area, plaintext string) string {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err)
	}
	out := s.aead.Seal(nonce, nonce, []byte(plaintext), []byte(area))
	return prefix + s.id + ":" + base64.RawURLEncoding.EncodeToString(out)
}

// Open decrypts text that Seal made for area with this key.
func (s *Sealer) Open(area, sealed string) (string, error) {
	rest, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return "", ErrNotSealed
	}
	id, body, ok := strings.Cut(rest, ":")
	if !ok {
		return "", ErrNotSealed
	}
	if id != s.id {
		return "", fmt.Errorf("%w (key %s, this key is %s)", ErrWrongKey, id, s.id)
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(raw) < s.aead.NonceSize()+s.aead.Overhead() {
		return "", ErrCorrupt
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(area))
	if err != nil {
		return "", ErrCorrupt
	}
	return string(plain), nil
}

// Lookup is the value to store beside a sealed value that is looked up by
// equality (a share link's key): HMAC-SHA256 of area and value under the
// key, "h1:<key id>:<base64url>". Equal values give equal lookups under one
// key; without the key, a lookup tells nothing of the value.
func (s *Sealer) Lookup(area, value string) string {
	m := hmac.New(sha256.New, s.lookup)
	m.Write([]byte(area))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return "h1:" + s.id + ":" + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// IsSealed tells whether text is sealed text (of any key).
func IsSealed(text string) bool { return strings.HasPrefix(text, prefix) }

// Equal compares two secrets in constant time.
func Equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
