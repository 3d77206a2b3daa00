package visitorauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"strings"
	"testing"
	"time"
)

// forge signs an arbitrary header and body under key, as an attacker who
// knows the key (or tries the public key as an HMAC secret) would.
func forge(key, hdr, body string) string {
	input := b64([]byte(hdr)) + "." + b64([]byte(body))
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(input))
	return input + "." + b64(m.Sum(nil))
}

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
	// Within the leeway after exp the token still verifies.
	if _, err := Verify("key-1", tok, now.Add(60*time.Second+Leeway-time.Second)); err != nil {
		t.Fatalf("within leeway: %v", err)
	}
	exp := `,"exp":1800000060`
	parts := strings.Split(tok, ".")
	for name, c := range map[string]struct {
		key, tok string
		at       time.Time
	}{
		"another key (regenerated)": {"key-2", tok, now},
		"empty key":                 {"", forge("", `{"alg":"HS256"}`, `{"exp":1800000060}`), now},
		"expired past the leeway":   {"key-1", tok, now.Add(60*time.Second + Leeway)},
		"tampered claims":           {"key-1", parts[0] + "." + b64([]byte(`{"plan":"ultimate"}`)) + "." + parts[2], now},
		"alg none":                  {"key-1", b64([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".", now},
		"alg none signed":           {"key-1", forge("key-1", `{"alg":"none"}`, `{"exp":1800000060}`), now},
		"alg RS256 (key confusion)": {"key-1", forge("key-1", `{"alg":"RS256"}`, `{"exp":1800000060}`), now},
		"alg ES256":                 {"key-1", forge("key-1", `{"alg":"ES256"}`, `{"exp":1800000060}`), now},
		"alg hs256 lower case":      {"key-1", forge("key-1", `{"alg":"hs256"}`, `{"exp":1800000060}`), now},
		"crit header":               {"key-1", forge("key-1", `{"alg":"HS256","crit":["b64"]}`, `{"exp":1800000060}`), now},
		"typ not JWT":               {"key-1", forge("key-1", `{"alg":"HS256","typ":"JOSE+JSON"}`, `{"exp":1800000060}`), now},
		"no exp":                    {"key-1", forge("key-1", `{"alg":"HS256"}`, `{"plan":"pro"}`), now},
		"exp a string":              {"key-1", forge("key-1", `{"alg":"HS256"}`, `{"exp":"1800000060"}`), now},
		"nbf in the future":         {"key-1", forge("key-1", `{"alg":"HS256"}`, `{"nbf":1800000600`+exp+`}`), now},
		"nbf not a number":          {"key-1", forge("key-1", `{"alg":"HS256"}`, `{"nbf":true`+exp+`}`), now},
		"claims not an object":      {"key-1", forge("key-1", `{"alg":"HS256"}`, `[1]`), now},
		"claims null":               {"key-1", forge("key-1", `{"alg":"HS256"}`, `null`), now},
		"trailing data":             {"key-1", forge("key-1", `{"alg":"HS256"}`, `{"exp":1800000060}{}`), now},
		"padded base64":             {"key-1", tok + "=", now},
		"four parts":                {"key-1", tok + ".x", now},
		"too long":                  {"key-1", forge("key-1", `{"alg":"HS256"}`, `{"exp":1800000060,"x":"`+strings.Repeat("a", MaxTokenBytes)+`"}`), now},
		"malformed":                 {"key-1", "abc", now},
	} {
		if _, err := Verify(c.key, c.tok, c.at); err != ErrInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	// nbf within the leeway is accepted.
	if _, err := Verify("key-1", forge("key-1", `{"alg":"HS256","typ":"jwt"}`, `{"nbf":1800000030`+exp+`}`), now); err != nil {
		t.Errorf("nbf within leeway: %v", err)
	}
	if _, err := Sign("", map[string]any{}); err == nil {
		t.Error("Sign with an empty key succeeded")
	}
}

// FuzzVerify: no input panics, and whatever verifies was signed with the
// key, carries HS256 and an unexpired exp.
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	good, _ := Sign("k", map[string]any{"exp": now.Unix() + 10, "a": []any{1, "b"}})
	for _, s := range []string{good, "", ".", "..", "a.b.c", good + "x", strings.Replace(good, ".", "..", 1),
		forge("k", `{"alg":"none"}`, `{"exp":1800000010}`), forge("k", `{"alg":"HS256"}`, `{"exp":1e308}`)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		claims, err := Verify("k", tok, now)
		if err != nil {
			if err != ErrInvalid {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		exp, ok := unixTime(claims["exp"])
		if !ok || !now.Before(exp.Add(Leeway)) {
			t.Fatalf("accepted without a valid exp: %v", claims)
		}
		parts := strings.Split(tok, ".")
		if len(parts) != 3 {
			t.Fatal("accepted a token that is not three parts")
		}
		m := hmac.New(sha256.New, []byte("k"))
		m.Write([]byte(parts[0] + "." + parts[1]))
		if b64(m.Sum(nil)) != parts[2] {
			t.Fatalf("accepted a token not signed with the key: %q", tok)
		}
	})
}
