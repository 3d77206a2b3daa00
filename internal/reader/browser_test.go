package reader_test

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// TestReaderInBrowser reads a published site in headless Chromium, with no
// network but the server's and no script on the pages: root, the sidebar
// three levels deep, a section and a variant, a search and its result,
// the theme toggle, a phone's width; then the access gate: a section
// hidden by its condition, a share-link site, a visitor-auth site.
func TestReaderInBrowser(t *testing.T) {
	bin := testkit.Chromium(t, "the reader's browser test")
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) { readInBrowser(t, bin, testkit.Start(t, kind)) })
	}
}

func readInBrowser(t *testing.T, bin string, s *testkit.Server) {
	d := newDocs(t, s)
	// 404s and 401s the test asks for on purpose are network errors.
	browser := testkit.NewBrowser(t, bin, s.URL, 120*time.Second, func(e *cdplog.Entry) bool { return e.Source == cdplog.EntrySourceNetwork })
	ctx := browser.Ctx
	shots := t.TempDir()

	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	heading := func(text string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(fmt.Sprintf(`//article/h1[normalize-space(.)=%q]`, text))
	}
	eval := func(js string) bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	location := func() string {
		t.Helper()
		l, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	screenshot := func(name string) []byte {
		t.Helper()
		b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if n := colours(t, b); n < 2 {
			t.Fatalf("screenshot %s is blank (%d colour)", name, n)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return b
	}

	step("open the root", chromedp.Navigate(s.URL+"/s/docs/"), heading("Getting started"))
	root := screenshot("root")
	// For the README: FOLIO_READER_SCREENSHOT=path keeps the root's picture.
	if out := os.Getenv("FOLIO_READER_SCREENSHOT"); out != "" && s.Dialect == "sqlite" {
		if err := os.WriteFile(out, root, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	step("sidebar, level one", chromedp.Click(chromedp.CSS(`aside.sidebar a[href="/s/docs/install"]`)), heading("Install"))
	step("sidebar, level two", chromedp.Click(chromedp.CSS(`aside.sidebar a[href="/s/docs/install/linux"]`)), heading("Linux"))
	step("sidebar, level three", chromedp.Click(chromedp.CSS(`aside.sidebar a[href="/s/docs/install/linux/ubuntu"]`)), heading("Ubuntu"))
	if !eval(`document.querySelector('aside.sidebar > ul a[aria-current="page"]').textContent === "Ubuntu"`) {
		t.Error("the sidebar does not mark the page read")
	}
	if eval(`!!document.querySelector('aside.sidebar a[href="/s/docs/secret"]')`) {
		t.Error("the sidebar lists a hidden page")
	}
	screenshot("deep")
	step("switch section", chromedp.Click(chromedp.CSS(`nav.sections a[href="/s/docs/api/"]`)), heading("Reference"))
	step("back to the guide", chromedp.Click(chromedp.CSS(`nav.sections a[href="/s/docs/"]`)), heading("Getting started"))
	step("switch variant", chromedp.Click(chromedp.CSS(`nav.variants a[href="/s/docs/guide-v2/"]`)), heading("Welcome v2"))
	step("search", chromedp.SendKeys(chromedp.CSS(`form.search input[name=q]`), "zebracorn"),
		chromedp.Submit(chromedp.CSS(`form.search input[name=q]`)),
		chromedp.WaitVisible(chromedp.CSS(`ol.results a.title`)))
	if !eval(`[...document.querySelectorAll("ol.results mark")].some(m => m.textContent === "zebracorn")`) {
		t.Error("the results do not highlight the word")
	}
	screenshot("search")
	step("open a result", chromedp.Click(chromedp.CSS(`ol.results a.title[href="/s/docs/install/linux/ubuntu"]`)), heading("Ubuntu"))
	background := func() string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	light := background()
	step("toggle the theme", chromedp.Click(chromedp.CSS(`a.theme`)), heading("Ubuntu"))
	if !eval(`document.documentElement.dataset.theme === "dark"`) || background() == light {
		t.Errorf("the toggle did not switch to dark (background %s, was %s)", background(), light)
	}
	screenshot("dark")
	step("toggle back", chromedp.Click(chromedp.CSS(`a.theme`)), heading("Ubuntu"))
	if background() != light {
		t.Error("the toggle did not switch back to light")
	}
	step("on a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(), heading("Ubuntu"))
	if eval(`getComputedStyle(document.querySelector("aside.sidebar")).display !== "none"`) {
		t.Error("the sidebar takes a phone's screen before the menu is opened")
	}
	step("open the menu", chromedp.Click(chromedp.CSS(`label.menu-label`)), chromedp.WaitVisible(chromedp.CSS(`aside.sidebar`)))
	if eval(`document.documentElement.scrollWidth > window.innerWidth + 1`) {
		t.Error("the page is wider than a phone's screen")
	}
	screenshot("phone")
	step("back to a desktop", chromedp.EmulateViewport(1280, 900))

	t.Run("a section hidden by its condition", func(t *testing.T) {
		api(t, s, d.token, "PUT", d.siteBase()+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
			"type": "object", "additionalProperties": false, "properties": map[string]any{
				"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false,
					"properties": map[string]any{"beta": map[string]any{"type": "boolean", "description": "Beta"}}}}}}, 200)
		api(t, s, d.token, "PATCH", d.siteBase()+"/sections/"+d.apiSection, map[string]any{"condition": "visitor.claims.unsigned.beta"}, 200)
		step("open the root", chromedp.Navigate(s.URL+"/s/docs/"), heading("Getting started"))
		if eval(`!!document.querySelector('nav.sections a[href="/s/docs/api/"]')`) {
			t.Error("the hidden section is a tab")
		}
		step("its URL", chromedp.Navigate(s.URL+"/s/docs/api/reference"), chromedp.WaitVisible(`//h1[.="Page not found"]`))
		step("with the claim", chromedp.Navigate(s.URL+"/s/docs/api/reference?visitor.beta=true"), heading("Reference"))
		api(t, s, d.token, "PATCH", d.siteBase()+"/sections/"+d.apiSection, map[string]any{"condition": nil}, 200)
	})
	t.Run("share link", func(t *testing.T) {
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "share-link"}, 200)
		key := s.MustGraphQL(t, d.token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { key } }`,
			map[string]any{"site": d.site})["createSiteShareLink"].(map[string]any)["key"].(string)
		step("without the key", chromedp.Navigate(s.URL+"/s/docs/install"), chromedp.WaitReady(chromedp.CSS(`body`)))
		if eval(`document.body.innerText.includes("Download it.")`) {
			t.Fatal("the share-link site opened without its key")
		}
		step("with the key", chromedp.Navigate(s.URL+"/s/docs/install?shareKey="+key), heading("Install"))
		step("then by its cookie", chromedp.Navigate(s.URL+"/s/docs/install/linux"), heading("Linux"))
	})
	t.Run("visitor auth", func(t *testing.T) {
		fallback := s.URL + "/healthz"
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "visitor-auth"}, 200)
		api(t, s, d.token, "PATCH", d.siteBase()+"/publishing/auth", map[string]any{"fallbackURL": fallback}, 200)
		step("without a token", chromedp.Navigate(s.URL+"/s/docs/install"), chromedp.WaitReady(chromedp.CSS(`body`)))
		if l := location(); !strings.HasPrefix(l, fallback) {
			t.Fatalf("without a token the browser is at %s, want the fallback %s", l, fallback)
		}
		key := api(t, s, d.token, "GET", d.siteBase()+"/publishing/auth", nil, 200)["privateKey"].(string)
		tok, err := visitorauth.Sign(key, map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		step("with a token", chromedp.Navigate(s.URL+"/s/docs/install?jwt_token="+tok), heading("Install"))
		if l := location(); l != s.URL+"/s/docs/install" {
			t.Errorf("the token stays in the address: %s", l)
		}
		screenshot("visitor")
	})

	browser.Check(t)
}

// colours counts the distinct colours of a PNG, up to a few.
func colours(t *testing.T, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	seen := map[[4]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 4 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 4 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) > 8 {
				return len(seen)
			}
		}
	}
	return len(seen)
}
