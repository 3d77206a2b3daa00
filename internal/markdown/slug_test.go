package markdown

import (
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Getting Started", "getting-started"},
		{"  Hello,   World!  ", "hello-world"},
		{"Café crème brûlée", "cafe-creme-brulee"},
		{"Ça va? Ångström Øresund", "ca-va-angstrom-oresund"},
		{"Straße / Łódź / Æsir", "strasse-lodz-aesir"},
		{"ﬁle №5 ²", "file-no5-2"},
		{"Ｆｕｌｌ ｗｉｄｔｈ", "full-width"},
		{"API v2.1 (beta)", "api-v2-1-beta"},
		{"--leading and trailing--", "leading-and-trailing"},
		{"snake_case & kebab-case", "snake-case-kebab-case"},
		{"Don't panic", "don-t-panic"},
		{"C++ & C#", "c-c"},
		{"日本語", "page"},
		{"Привет мир 2", "2"},
		{"emoji 🚀 launch", "emoji-launch"},
		{"", "page"},
		{"   ", "page"},
		{"!!!", "page"},
		{"UPPER lower 123", "upper-lower-123"},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSlugLong(t *testing.T) {
	long := strings.Repeat("word ", 50)
	got := Slug(long)
	if len(got) > 100 {
		t.Fatalf("len = %d, want <= 100", len(got))
	}
	// 20 "word-" groups make 100 characters, the last '-' is trimmed.
	if want := strings.TrimSuffix(strings.Repeat("word-", 20), "-"); got != want {
		t.Errorf("Slug(long) = %q, want %q", got, want)
	}
	if got := Slug(strings.Repeat("a", 150)); got != strings.Repeat("a", 100) {
		t.Errorf("Slug(150 a) = %q", got)
	}
	if got := Slug(strings.Repeat("é", 150)); got != strings.Repeat("e", 100) {
		t.Errorf("Slug(150 é) = %q", got)
	}
}

func TestSlugShape(t *testing.T) {
	for _, in := range []string{"a", "Ω", "x--y", "a\x00b", "\xff\xfe", "-", "é-"} {
		s := Slug(in)
		if s == "" || len(s) > 100 || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
			t.Errorf("Slug(%q) = %q: bad shape", in, s)
		}
		for _, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Errorf("Slug(%q) = %q: bad character %q", in, s, r)
			}
		}
	}
}
