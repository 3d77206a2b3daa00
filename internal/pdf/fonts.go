package pdf

import (
	"os"
	"path/filepath"
	"sync"
	"unicode"
)

// Fonts: when Debian's TrueType fonts are installed, Render embeds them
// (subset to the glyphs used) and writes text as UTF-8, so Latin, Greek and
// Cyrillic print in DejaVu Sans (fonts-dejavu-core) and Chinese, Japanese
// and Korean in Droid Sans Fallback (fonts-droid-fallback), switched per run
// of text. Without DejaVu the core fonts and cp1252 remain (characters
// outside it print as "?"); without Droid, CJK runs print in DejaVu, which
// has no glyphs for them. Right-to-left scripts and Indic shaping are not
// handled: their letters print unshaped, in logical order.

// FontDirs are where the fonts are looked for, in order.
var FontDirs = []string{"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/droid"}

// Font files by role.
const (
	fileSans     = "DejaVuSans.ttf"
	fileSansBold = "DejaVuSans-Bold.ttf"
	fileMono     = "DejaVuSansMono.ttf"
	fileCJK      = "DroidSansFallbackFull.ttf"
)

// Family names Render registers.
const (
	familySans = "dejavu"
	familyMono = "dejavumono"
	familyCJK  = "droid"
)

type fontFiles struct {
	sans, sansBold, mono, cjk []byte
}

var (
	fontsOnce sync.Once
	fonts     fontFiles
)

// loadFonts reads the font files once per process.
func loadFonts() fontFiles {
	fontsOnce.Do(func() {
		read := func(name string) []byte {
			for _, dir := range FontDirs {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
					return b
				}
			}
			return nil
		}
		fonts = fontFiles{sans: read(fileSans), sansBold: read(fileSansBold), mono: read(fileMono), cjk: read(fileCJK)}
		if fonts.sansBold == nil {
			fonts.sansBold = fonts.sans
		}
		if fonts.mono == nil {
			fonts.mono = fonts.sans
		}
	})
	return fonts
}

// isCJK tells the runes that print in the CJK font: Han, kana, Hangul,
// bopomofo, CJK punctuation and full-width forms.
func isCJK(r rune) bool {
	switch {
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo):
		return true
	case r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFFEF, r >= 0x31F0 && r <= 0x31FF:
		return true
	}
	return false
}

// run is a stretch of text in one font.
type run struct {
	text string
	cjk  bool
}

// runs splits s into maximal runs of CJK and other text; spaces stay with
// the run they follow.
func runs(s string) []run {
	var out []run
	start, cur := 0, false
	for i, r := range s {
		c := isCJK(r)
		if i == 0 {
			cur = c
			continue
		}
		if c != cur && !unicode.IsSpace(r) {
			out = append(out, run{s[start:i], cur})
			start, cur = i, c
		}
	}
	if start < len(s) {
		out = append(out, run{s[start:], cur})
	}
	return out
}

func hasCJK(s string) bool {
	for _, r := range s {
		if isCJK(r) {
			return true
		}
	}
	return false
}
