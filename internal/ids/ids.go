// Package ids makes the identifiers of every stored object: random, URL-safe
// and unguessable, so an ID never tells how many objects exist.
package ids

import (
	"crypto/rand"
)

// alphabet is URL-safe and has a single case, so IDs sort the same in every
// database collation (keyset cursors compare IDs in SQL and must agree).
const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// Length of a new ID: 20 characters of a 36-letter alphabet is about 103 bits.
const Length = 20

// New returns a fresh random ID.
func New() string {
	var b [Length]byte
	out := make([]byte, Length)
	for i := 0; i < Length; {
		if _, err := rand.Read(b[:]); err != nil {
			panic("ids: no randomness: " + err.Error())
		}
		for _, c := range b {
			// Reject values that would bias the distribution (252 = 7*36).
			if c >= 252 {
				continue
			}
			out[i] = alphabet[int(c)%len(alphabet)]
			i++
			if i == Length {
				break
			}
		}
	}
	return string(out)
}
