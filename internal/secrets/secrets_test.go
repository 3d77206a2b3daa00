package secrets_test

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/folio/folio/internal/secrets"
)

// TestSealOpen: sealed text names the format and the key, opens to the
// value under the same key and area only, differs each time (random
// nonce), and refuses changed text, another area or another key.
func TestSealOpen(t *testing.T) {
	k := secrets.NewKey()
	s := secrets.New(k)
	sealed := s.Seal("sites.auth_private_key", "the key")
	if !strings.HasPrefix(sealed, "v1:"+k.ID()+":") || strings.Contains(sealed, "the key") || !secrets.IsSealed(sealed) {
		t.Fatalf("sealed: %q", sealed)
	}
	if again := s.Seal("sites.auth_private_key", "the key"); again == sealed {
		t.Fatal("two seals of one value are equal")
	}
	if v, err := s.Open("sites.auth_private_key", sealed); err != nil || v != "the key" {
		t.Fatalf("open: %q %v", v, err)
	}
	if _, err := s.Open("spaces.share_key", sealed); !errors.Is(err, secrets.ErrCorrupt) {
		t.Fatalf("open in another area: %v", err)
	}
	changed := sealed[:len(sealed)-2] + "AA"
	if changed == sealed {
		changed = sealed[:len(sealed)-2] + "BB"
	}
	if _, err := s.Open("sites.auth_private_key", changed); !errors.Is(err, secrets.ErrCorrupt) {
		t.Fatalf("open changed text: %v", err)
	}
	if _, err := secrets.New(secrets.NewKey()).Open("sites.auth_private_key", sealed); !errors.Is(err, secrets.ErrWrongKey) {
		t.Fatalf("open with another key: %v", err)
	}
	if _, err := s.Open("sites.auth_private_key", "the key"); !errors.Is(err, secrets.ErrNotSealed) {
		t.Fatalf("open clear text: %v", err)
	}
	if v, err := s.Open("a", s.Seal("a", "")); err != nil || v != "" {
		t.Fatalf("empty value: %q %v", v, err)
	}
}

// TestLookup: equal values give equal lookups under one key and area,
// never the value itself; another key or area gives another lookup.
func TestLookup(t *testing.T) {
	s, other := secrets.New(secrets.NewKey()), secrets.New(secrets.NewKey())
	a := s.Lookup("site_share_links.key", "abc")
	if a != s.Lookup("site_share_links.key", "abc") || strings.Contains(a, "abc") || !strings.HasPrefix(a, "h1:"+s.KeyID()+":") {
		t.Fatalf("lookup: %q", a)
	}
	for _, b := range []string{s.Lookup("site_share_links.key", "abd"), s.Lookup("other", "abc"), other.Lookup("site_share_links.key", "abc")} {
		if b == a {
			t.Fatalf("lookup %q repeats", b)
		}
	}
}

// TestParseKey: base64 (either alphabet, padded or not) and hex of 32
// bytes; anything else is refused saying why.
func TestParseKey(t *testing.T) {
	k := secrets.NewKey()
	for _, text := range []string{k.String(), strings.TrimRight(k.String(), "="), hex.EncodeToString(k[:]), " " + k.String() + "\n"} {
		if got, err := secrets.ParseKey(text); err != nil || got != k {
			t.Errorf("ParseKey(%q): %v", text, err)
		}
	}
	for text, why := range map[string]string{"": "bytes", "c2VjcmV0": "6 bytes", "not a key!": "not base64", strings.Repeat("ab", 16): "bytes"} {
		if _, err := secrets.ParseKey(text); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseKey(%q): %v, want %q", text, err, why)
		}
	}
}
