package reader

import (
	"fmt"
	"math"
	"strconv"
)

// Text must stand out from its background by a contrast ratio of 4.5:1
// (WCAG AA, which axe-core checks). A site's primary colour is its
// links' colour, and a colour picked for a brand is often too light on
// white or too dark on the dark theme: readable moves it towards the
// theme's text colour until it is readable on each of the theme's
// backgrounds. Colours of enough contrast stay as they are.

// The themes' text and backgrounds (page, sidebar), as site.css has them.
var (
	lightInk, lightBackgrounds = "#1d1d1f", []string{"#ffffff", "#f5f6f8"}
	darkInk, darkBackgrounds   = "#e8e9eb", []string{"#15171a", "#1d2024"}
)

// minContrast is AA's 4.5 with a margin for rounding to 8-bit colours.
const minContrast = 4.6

func readable(col, ink string, backgrounds []string) string {
	c, ok := parseHex(col)
	if !ok {
		return col
	}
	t, _ := parseHex(ink)
	for step := 0; step <= 20; step++ {
		f := float64(step) / 20
		m := [3]float64{}
		for i := range m {
			m[i] = math.Round(c[i]*(1-f) + t[i]*f)
		}
		worst := math.Inf(1)
		for _, bg := range backgrounds {
			b, _ := parseHex(bg)
			worst = math.Min(worst, contrast(m, b))
		}
		if worst >= minContrast {
			return fmt.Sprintf("#%02x%02x%02x", int(m[0]), int(m[1]), int(m[2]))
		}
	}
	return ink
}

// parseHex reads #rgb or #rrggbb as 0-255 channels.
func parseHex(s string) ([3]float64, bool) {
	if !validColor(s) {
		return [3]float64{}, false
	}
	h := s[1:]
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	var out [3]float64
	for i := range out {
		v, err := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		if err != nil {
			return out, false
		}
		out[i] = float64(v)
	}
	return out, true
}

// contrast is WCAG's contrast ratio of two colours.
func contrast(a, b [3]float64) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + .05) / (lb + .05)
}

func luminance(c [3]float64) float64 {
	var l [3]float64
	for i, v := range c {
		v /= 255
		if v <= .04045 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+.055)/1.055, 2.4)
		}
	}
	return .2126*l[0] + .7152*l[1] + .0722*l[2]
}
