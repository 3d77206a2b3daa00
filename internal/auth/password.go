package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters of new hashes (RFC 9106's second recommended
// option, with less memory: 64 MiB, 3 passes). A stored hash carries its
// own parameters, so raising them later leaves old hashes valid.
const (
	argonMemory  = 64 * 1024 // KiB
	argonTime    = 3
	argonThreads = 2
	argonKeyLen  = 32
	argonSaltLen = 16
)

// MaxPasswordBytes bounds what is hashed: a longer password is refused
// before any work (argon2 cost does not depend on length, but reading a
// megabyte-long field does).
const MaxPasswordBytes = 1024

// MinPasswordLength is the fewest characters a password may have (NIST SP
// 800-63B's minimum for a password chosen by its owner).
const MinPasswordLength = 8

// hashing bounds the argon2id computations running at once: each holds
// argonMemory, so a burst of sign-ins waits its turn instead of taking
// gigabytes.
var hashing = make(chan struct{}, max(2, runtime.NumCPU()))

func idKey(password, salt []byte, t, m uint32, p uint8, n uint32) []byte {
	hashing <- struct{}{}
	defer func() { <-hashing }()
	return argon2.IDKey(password, salt, t, m, p, n)
}

// HashPassword returns password's argon2id hash in PHC form:
// $argon2id$v=19$m=65536,t=3,p=2$<salt>$<hash> (unpadded base64).
func HashPassword(password string) string {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		panic("auth: no randomness: " + err.Error())
	}
	return encodeHash(argonMemory, argonTime, argonThreads, salt, idKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen))
}

func encodeHash(m uint32, t uint32, p uint8, salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, m, t, p, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// CheckPassword tells whether password matches encoded (a HashPassword
// result), comparing in constant time. A malformed hash matches nothing.
func CheckPassword(encoded, password string) bool {
	m, t, p, salt, key, err := decodeHash(encoded)
	if err != nil {
		return false
	}
	got := idKey([]byte(password), salt, t, m, p, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}

// dummyHash is checked against when the account is unknown, so an
// unknown email costs the same work as a wrong password.
var dummyHash = HashPassword("folio: no such account")

// CheckDummyPassword does the work of CheckPassword and matches nothing.
func CheckDummyPassword(password string) {
	CheckPassword(dummyHash, password+"\x00")
}

var errBadHash = errors.New("auth: not an argon2id hash")

func decodeHash(s string) (m, t uint32, p uint8, salt, key []byte, err error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return 0, 0, 0, nil, nil, errBadHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return 0, 0, 0, nil, nil, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || t == 0 || p == 0 || m > 1<<22 || t > 64 {
		return 0, 0, 0, nil, nil, errBadHash
	}
	b64 := base64.RawStdEncoding
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return 0, 0, 0, nil, nil, errBadHash
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < 16 {
		return 0, 0, 0, nil, nil, errBadHash
	}
	return m, t, p, salt, key, nil
}

// NewSessionSecret returns the random value of a session cookie (256
// bits) and the hash to store (HashToken).
func NewSessionSecret() (secret, hash string) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("auth: no randomness: " + err.Error())
	}
	secret = base64.RawURLEncoding.EncodeToString(b[:])
	return secret, HashToken(secret)
}
