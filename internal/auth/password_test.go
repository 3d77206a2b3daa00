package auth

import (
	"strings"
	"testing"
)

func TestPasswordHash(t *testing.T) {
	h := HashPassword("correct horse")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=2$") {
		t.Fatalf("not PHC argon2id: %s", h)
	}
	if !CheckPassword(h, "correct horse") || CheckPassword(h, "correct horsf") || CheckPassword(h, "") {
		t.Fatal("check does not tell passwords apart")
	}
	if HashPassword("correct horse") == h {
		t.Fatal("two hashes of one password share a salt")
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=1,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5", h[:len(h)-3] + "!!!", "$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5"} {
		if CheckPassword(bad, "correct horse") {
			t.Errorf("malformed hash %q matched", bad)
		}
	}
}
