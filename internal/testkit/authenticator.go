package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// Authenticator is a software WebAuthn authenticator for tests of the
// server's side (go-webauthn has no client): ES256 keys it makes itself,
// "none" attestation, and the browser's part too (clientDataJSON with
// Origin). It keeps its credentials like a passkey provider: discoverable,
// each with its user handle and signature counter.
type Authenticator struct {
	// Origin is what the "browser" puts in clientDataJSON.
	Origin string
	Creds  map[string]*SoftCredential // by credential id (base64url)
}

// SoftCredential is one key of an Authenticator.
type SoftCredential struct {
	ID         []byte
	Key        *ecdsa.PrivateKey
	UserHandle []byte
	RPID       string
	// Count is the signature counter the next assertion reports (then
	// raised by one).
	Count uint32
}

// NewAuthenticator is an empty authenticator used from origin.
func NewAuthenticator(origin string) *Authenticator {
	return &Authenticator{Origin: origin, Creds: map[string]*SoftCredential{}}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func unb64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("base64url %q: %v", s, err)
	}
	return b
}

// clientData is the browser's clientDataJSON for a ceremony.
func (a *Authenticator) clientData(typ, challenge string) []byte {
	raw, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.Origin, "crossOrigin": false})
	return raw
}

// Create answers navigator.credentials.create's options (the JSON Folio
// sent: {"publicKey": …}) with a new credential, as the JSON the page
// posts, and the credential made.
func (a *Authenticator) Create(t testing.TB, options []byte) (json.RawMessage, *SoftCredential) {
	t.Helper()
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
			RP        struct {
				ID string `json:"id"`
			} `json:"rp"`
			User struct {
				ID string `json:"id"`
			} `json:"user"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(options, &o); err != nil {
		t.Fatalf("creation options: %v: %s", err, options)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	c := &SoftCredential{ID: id, Key: key, UserHandle: unb64(t, o.PublicKey.User.ID), RPID: o.PublicKey.RP.ID, Count: 1}
	a.Creds[b64(id)] = c

	// COSE_Key: EC2 (1: 2), ES256 (3: -7), P-256 (-1: 1), x (-2), y (-3).
	x, y := make([]byte, 32), make([]byte, 32)
	key.PublicKey.X.FillBytes(x)
	key.PublicKey.Y.FillBytes(y)
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
	if err != nil {
		t.Fatal(err)
	}
	rpHash := sha256.Sum256([]byte(c.RPID))
	auth := append([]byte{}, rpHash[:]...)
	auth = append(auth, 0x01|0x04|0x40) // user present, verified, attested credential data
	auth = binary.BigEndian.AppendUint32(auth, 0)
	auth = append(auth, make([]byte, 16)...) // AAGUID: none
	auth = binary.BigEndian.AppendUint16(auth, uint16(len(id)))
	auth = append(auth, id...)
	auth = append(auth, cose...)
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": auth})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{
		"id": b64(id), "rawId": b64(id), "type": "public-key", "authenticatorAttachment": "platform",
		"clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64(a.clientData("webauthn.create", o.PublicKey.Challenge)),
			"attestationObject": b64(att),
			"transports":        []string{"internal"},
		},
	})
	return raw, c
}

// Get answers navigator.credentials.get's options with an assertion of
// c (the first of the authenticator's for the RP when c is nil).
func (a *Authenticator) Get(t testing.TB, options []byte, c *SoftCredential) json.RawMessage {
	t.Helper()
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
			RPID      string `json:"rpId"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(options, &o); err != nil {
		t.Fatalf("request options: %v: %s", err, options)
	}
	if c == nil {
		for _, k := range a.Creds {
			if k.RPID == o.PublicKey.RPID {
				c = k
				break
			}
		}
		if c == nil {
			t.Fatalf("no credential for %q", o.PublicKey.RPID)
		}
	}
	rpHash := sha256.Sum256([]byte(c.RPID))
	auth := append([]byte{}, rpHash[:]...)
	auth = append(auth, 0x01|0x04) // user present, verified
	auth = binary.BigEndian.AppendUint32(auth, c.Count)
	c.Count++
	clientData := a.clientData("webauthn.get", o.PublicKey.Challenge)
	cdHash := sha256.Sum256(clientData)
	digest := sha256.Sum256(append(append([]byte{}, auth...), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, c.Key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{
		"id": b64(c.ID), "rawId": b64(c.ID), "type": "public-key", "authenticatorAttachment": "platform",
		"clientExtensionResults": map[string]any{},
		"response": map[string]any{
			"clientDataJSON":    b64(clientData),
			"authenticatorData": b64(auth),
			"signature":         b64(sig),
			"userHandle":        b64(c.UserHandle),
		},
	})
	return raw
}
