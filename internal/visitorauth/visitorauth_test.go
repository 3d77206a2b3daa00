package visitorauth

import (
	"strings"
	"testing"
	"time"
)

func TestSignVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tok, err := Sign("key-1", map[string]any{"plan": "pro", "exp": now.Unix() + 60})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := Verify("key-1", tok, now)
	if err != nil || claims["plan"] != "pro" {
		t.Fatalf("verify: %v %v", claims, err)
	}
	parts := strings.Split(tok, ".")
	for name, c := range map[string]struct {
		key, tok string
		at       time.Time
	}{
		"another key (regenerated)": {"key-2", tok, now},
		"expired":                   {"key-1", tok, now.Add(time.Minute)},
		"tampered claims":           {"key-1", parts[0] + "." + b64([]byte(`{"plan":"ultimate"}`)) + "." + parts[2], now},
		"alg none":                  {"key-1", b64([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".", now},
		"malformed":                 {"key-1", "abc", now},
	} {
		if _, err := Verify(c.key, c.tok, c.at); err != ErrInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
}
