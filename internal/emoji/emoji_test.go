package emoji

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestNormalizeAccepts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Characters.
		{"👍", "👍"},
		{"😀", "😀"},
		{"❤", "❤️"},  // unqualified
		{"❤️", "❤️"}, // fully-qualified
		{"©", "©️"},
		{"☺", "☺️"},
		{"👍🏽", "👍🏽"},       // skin tone
		{"👨‍👩‍👧", "👨‍👩‍👧"}, // ZWJ sequence
		{"🏳️‍🌈", "🏳️‍🌈"},   // ZWJ with FE0F inside
		{"🏳‍🌈", "🏳️‍🌈"},    // ... given without it (unqualified)
		{"👁‍🗨", "👁️‍🗨️"},   // unqualified ZWJ sequence
		{"👁️‍🗨", "👁️‍🗨️"},  // minimally-qualified
		{"🇫🇷", "🇫🇷"},       // flag
		{"🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"}, // subdivision flag (tag sequence)
		{"#️⃣", "#️⃣"},   // keycap
		{"1⃣", "1️⃣"},    // keycap without FE0F
		{"👍\ufe0f", "👍"}, // redundant FE0F
		{"🫩", "🫩"},       // Emoji 16.0
		{"🫈", "🫈"},       // Emoji 17.0 (hairy creature)
		// Code points in hex.
		{"1f44d", "👍"},
		{"1F44D", "👍"},
		{"U+1F44D", "👍"},
		{"u+1f44d", "👍"},
		{"2764", "❤️"},
		{"2764-fe0f", "❤️"},
		{"U+2764-U+FE0F", "❤️"},
		{"a9", "©️"},
		{"00a9", "©️"},
		{"1f44d-1f3fb", "👍🏻"},
		{"1f468-200d-1f469-200d-1f467", "👨‍👩‍👧"},
		{"1f1eb-1f1f7", "🇫🇷"},
		{"1F1FA-1F1F8", "🇺🇸"},
		{"23-fe0f-20e3", "#️⃣"},
		{"0023-20e3", "#️⃣"},
		{"31-20e3", "1️⃣"},
		{"1f3f3-fe0f-200d-1f308", "🏳️‍🌈"},
		{"1f3f4-e0067-e0062-e0065-e006e-e0067-e007f", "🏴󠁧󠁢󠁥󠁮󠁧󠁿"},
		// The longest sequences of the data (10 code points), in the longest hex form.
		{"U+1F469-U+1F3FB-U+200D-U+2764-U+FE0F-U+200D-U+1F48B-U+200D-U+1F468-U+1F3FC", "👩🏻‍❤️‍💋‍👨🏼"},
	} {
		got, err := Normalize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestNormalizeRejects(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"", "is empty"},
		{"thumbs up", "is not an emoji of Unicode Emoji " + Version},
		{"abc", "is not an emoji"}, // hex for U+0ABC, a Gujarati sign
		{"cafe", "is not an emoji"},
		{"1", "is not an emoji"},
		{"#", "is not an emoji"},
		{"7", "is not an emoji"},
		{"37", "is not an emoji"},    // "7" in hex
		{"1f3fb", "is not an emoji"}, // lone skin-tone modifier
		{"🏻", "is not an emoji"},
		{"🦰", "is not an emoji"},     // lone hair component
		{"1f1eb", "is not an emoji"}, // lone regional indicator
		{"🇫", "is not an emoji"},
		{"🇫🇷🇫", "is not an emoji"},            // unpaired regional indicator
		{"1f1e6-1f1e6", "is not an emoji"},    // no such flag
		{"20e3", "is not an emoji"},           // lone keycap mark
		{"200d", "is not an emoji"},           // lone joiner
		{"fe0f", "is not an emoji"},           // lone selector
		{"fe0f-2764", "is not an emoji"},      // selector first
		{"2764-fe0f-fe0f", "is not an emoji"}, // doubled selector
		{"2764-fe0e", "is not an emoji"},      // text presentation
		{"1f468-200d", "is not an emoji"},     // dangling joiner
		{"1f468-200d-fe0f-1f469", "is not an emoji"},
		{"👍👍", "is not an emoji"},          // two emoji
		{"👍 ", "is not an emoji"},          // trailing space
		{"1f44d 1f3fb", "is not an emoji"}, // spaces are not the separator
		{"10ffff", "is not an emoji"},      // random code point
		{"e000", "is not an emoji"},        // private use
		{"1f44g", "is not an emoji"},       // not hex: read as characters
		{"1f44d-", "is not code points in hex"},
		{"-1f44d", "is not code points in hex"},
		{"1f44d--1f3fb", "is not code points in hex"},
		{"U+", "is not code points in hex"},
		{"U+U+1f44d", "is not code points in hex"},
		{"u", "is not code points in hex"},
		{"+1f44d", "is not code points in hex"},
		{"110000", "is not code points in hex"},   // past Unicode
		{"d83d", "is not code points in hex"},     // surrogate
		{"0001f44d", "is not code points in hex"}, // more than 6 digits
		{"\xff\xfe", "is not valid UTF-8"},
		{strings.Repeat("👍", MaxLen/4+1), "is too long"},
		{strings.Repeat("1f44d-", 30), "is too long"},
	} {
		got, err := Normalize(tc.in)
		if err == nil {
			t.Errorf("Normalize(%q) = %q, want an error %q", tc.in, got, tc.msg)
			continue
		}
		if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("Normalize(%q) error %q, want one starting %q matching ErrInvalid", tc.in, err, tc.msg)
		}
	}
}

// TestEveryLineOfTheData normalizes every line of the committed emoji-test.txt,
// as characters and as hex: each emoji to its fully-qualified form (found by
// its name, not by the package's own U+FE0F rule), each component alone to an
// error. It also pins the table to the file: as many entries as
// fully-qualified lines, so a stale table.go fails here.
func TestEveryLineOfTheData(t *testing.T) {
	f, err := os.Open("data/emoji-test.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	type line struct{ seq, status, name string }
	var lines []line
	fullByName := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		// "1F44D 1F3FB ; fully-qualified # 👍🏻 E1.0 thumbs up: light skin tone"
		cps, rest, _ := strings.Cut(text, ";")
		status, comment, _ := strings.Cut(rest, "#")
		_, name, _ := strings.Cut(strings.TrimSpace(comment), " E") // after the emoji
		_, name, _ = strings.Cut(name, " ")                         // after the version
		var seq []rune
		for _, h := range strings.Fields(cps) {
			v, err := strconv.ParseUint(h, 16, 32)
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			seq = append(seq, rune(v))
		}
		l := line{string(seq), strings.TrimSpace(status), name}
		if l.status == "fully-qualified" {
			fullByName[name] = l.seq
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(fullByName) < 3000 || len(table()) != len(fullByName) {
		t.Fatalf("table has %d emoji, the data %d fully-qualified (want a few thousand): run go generate ./internal/emoji", len(table()), len(fullByName))
	}
	checked := 0
	for _, l := range lines {
		hexes := make([]string, 0, 10)
		for _, r := range l.seq {
			hexes = append(hexes, fmt.Sprintf("%x", r))
		}
		for _, in := range []string{l.seq, strings.Join(hexes, "-"), "U+" + strings.ToUpper(strings.Join(hexes, "-U+"))} {
			got, err := Normalize(in)
			if l.status == "component" {
				if err == nil {
					t.Errorf("component %q (%s) accepted as %q", in, l.name, got)
				}
				continue
			}
			want, ok := fullByName[l.name]
			if !ok {
				t.Fatalf("%s %q (%s): no fully-qualified line of that name", l.status, in, l.name)
			}
			if err != nil || got != want {
				t.Errorf("%s %q (%s): Normalize = %q, %v; want %q", l.status, in, l.name, got, err, want)
			}
			checked++
		}
	}
	if checked < 15000 {
		t.Errorf("checked %d forms, want every line of the data in 3 forms", checked)
	}
}

// FuzzNormalize: whatever is accepted comes back as a fully-qualified emoji
// of the table that normalizes to itself; whatever is refused matches
// ErrInvalid with a message that does not echo over-long input. The seeds run
// with `go test`; `go test -fuzz FuzzNormalize ./internal/emoji` explores.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"👍", "❤", "2764-fe0f", "U+1F1EB-U+1F1F7", "1f3fb", "abc", "", "👨‍👩‍👧", "#️⃣", "\xff", "1f44d--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Normalize(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Normalize(%q) error %v does not match ErrInvalid", s, err)
			}
			if len(err.Error()) > 200 {
				t.Fatalf("Normalize(%q) error is %d bytes long", s, len(err.Error()))
			}
			return
		}
		again, err := Normalize(got)
		if err != nil || again != got {
			t.Fatalf("Normalize(%q) = %q, which normalizes to %q, %v", s, got, again, err)
		}
		key, _ := matchKey([]rune(got))
		if table()[key] != got {
			t.Fatalf("Normalize(%q) = %q, not a fully-qualified emoji of the table", s, got)
		}
	})
}

// TestErrorMessages pins the texts an API answer shows after the field's
// name, echoed input cut short.
func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abc", `is not an emoji of Unicode Emoji ` + Version + `: "abc" (give the character(s) or code points in hex such as 1f44d or 1f1eb-1f1f7)`},
		{"1f44d-zz", `is not an emoji of Unicode Emoji ` + Version + `: "1f44d-zz" (give the character(s) or code points in hex such as 1f44d or 1f1eb-1f1f7)`},
		{"1f44d-ff-", `is not code points in hex joined by "-": "" in "1f44d-ff-"`},
		{"1234567", `is not code points in hex joined by "-": "1234567" in "1234567"`},
		{strings.Repeat("\x04", 100), `is not an emoji of Unicode Emoji ` + Version + `: "` + strings.Repeat(`\x04`, 10) + `…" (give the character(s) or code points in hex such as 1f44d or 1f1eb-1f1f7)`},
		{strings.Repeat("👍", 33), `is too long for an emoji (at most 128 bytes)`},
		{"", `is empty: give an emoji as its character(s) or as code points in hex, such as 1f44d`},
	} {
		_, err := Normalize(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Normalize(%q) error\n%v\nwant\n%s", tc.in, err, tc.want)
		}
	}
}
