package reader_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/folio/folio/internal/testkit"
)

// The reader's quality checks run the tools of the Node kit
// (internal/clientkit: axe-core, html-validate, Lighthouse, locked in its
// package-lock.json) over every kind of page a published site shows.

// kitDir is the Node kit, whose node_modules holds the tools.
const kitDir = "../clientkit"

// nodeTools is the node binary once the kit's dependencies are installed.
// CI must have both (.ci/run runs `npm ci` there); elsewhere the test says
// how to get them and skips, as the browser tests do for Chromium.
func nodeTools(t *testing.T) string {
	t.Helper()
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node is not on PATH")
	}
	for _, f := range []string{"axe-core/axe.min.js", "html-validate/bin/html-validate.mjs", "lighthouse/cli/index.js"} {
		if _, err := os.Stat(filepath.Join(kitDir, "node_modules", f)); err != nil {
			missing = append(missing, "internal/clientkit/node_modules/"+f+" is missing")
		}
	}
	if len(missing) == 0 {
		return node
	}
	how := "the reader's quality checks need Node and `npm ci` in internal/clientkit (" + strings.Join(missing, "; ") + ")"
	if os.Getenv("CI") != "" {
		t.Fatal(how + " (CI is set: .ci/run installs them)")
	}
	t.Skip("SKIPPED: " + how)
	return ""
}

// formats is a page with every block the markdown engine renders.
const formats = "# Formats\n\nEvery block a page may hold, as readers see it.\n\n" +
	"| Fruit | Count | Colour |\n|:------|------:|:------:|\n| apples | 3 | red |\n| pears | 12 | green |\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hello\") // a comment\n}\n```\n\n" +
	"Inline `code`, **bold**, *emphasis*, ~~struck~~ and a [link](errors.md).\n\n" +
	"{% hint style=\"info\" %}\nAn info hint with `code`.\n{% endhint %}\n\n" +
	"{% hint style=\"success\" %}\nA success hint.\n{% endhint %}\n\n" +
	"{% hint style=\"warning\" %}\nA warning hint.\n{% endhint %}\n\n" +
	"{% hint style=\"danger\" %}\nA danger hint.\n{% endhint %}\n\n" +
	"{% tabs %}\n{% tab title=\"One\" %}\nThe first tab.\n{% endtab %}\n{% tab title=\"Two\" %}\nThe second tab.\n{% endtab %}\n{% endtabs %}\n\n" +
	"## Lists\n\n- [x] done\n- [ ] to do\n\n1. one\n2. two\n\n> A quote, with a footnote[^1].\n\n" +
	"{% content-ref url=\"errors.md\" %}\n[errors.md](errors.md)\n{% endcontent-ref %}\n\n" +
	"{% embed url=\"https://example.com/video\" %}\nA video\n{% endembed %}\n\n" +
	"### Deeper\n\nText.\n\n[^1]: The note.\n"

// qualityPage is a page of the fixture site and the status it answers.
type qualityPage struct {
	name, path string
	status     int
}

// qualitySite publishes the docs fixture, with a page of every block and
// an API reference block in the API section, and lists the kinds of page.
func qualitySite(t *testing.T, s *testkit.JobServer) (*docs, []qualityPage) {
	t.Helper()
	d := newDocs(t, s.Server)
	spec := "/orgs/" + d.org + "/openapi/pets"
	api(t, s.Server, d.token, "POST", "/orgs/"+d.org+"/openapi",
		map[string]any{"slug": "pets", "source": map[string]any{"text": petsSpec("List all pets")}}, 201)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if got := api(t, s.Server, d.token, "GET", spec, nil, 200); got["processingState"] == "complete" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("spec not processed")
		}
	}
	seed(t, s.Server, d.apiSpace, []pg{
		{title: "Reference", slug: "reference", md: "# Reference\n\nEndpoints, zebracorn included.\n\n" +
			"{% openapi-operation spec=\"pets\" path=\"/pets\" method=\"get\" %}\n[pets](https://example.com)\n{% endopenapi-operation %}\n"},
		{title: "Errors", slug: "errors", md: "# Errors\n\nWhat fails.\n"},
		{title: "Formats", slug: "formats", md: formats},
	})
	return d, []qualityPage{
		{"home", "/s/docs/", 200},
		{"page", "/s/docs/install/linux/ubuntu", 200},
		{"variant", "/s/docs/guide-v2/", 200},
		{"blocks", "/s/docs/api/formats", 200},
		{"openapi", "/s/docs/api/", 200},
		{"search", "/s/docs/_search?q=zebracorn", 200},
		{"empty search", "/s/docs/_search", 200},
		{"no results", "/s/docs/_search?q=nothingmatchesthis", 200},
		{"not found", "/s/docs/no/such/page", 404},
	}
}

// TestReaderQuality checks every kind of page of a published site with
// axe-core in Chromium (no violation in the light theme, the dark one, and
// the system's of either kind when the site follows it) and with
// html-validate (no error), on each database.
func TestReaderQuality(t *testing.T) {
	bin := testkit.Chromium(t, "the reader's quality checks")
	node := nodeTools(t)
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, nil)
			d, pages := qualitySite(t, s)
			t.Run("html-validate", func(t *testing.T) { validateHTML(t, node, s.URL, pages) })
			t.Run("axe", func(t *testing.T) { checkAxe(t, bin, s.Server, d, pages) })
		})
	}
}

// validateHTML runs html-validate's recommended rules over each page's
// HTML, in the light and the dark theme.
func validateHTML(t *testing.T, node, base string, pages []qualityPage) {
	dir := t.TempDir()
	var files []string
	names := map[string]string{}
	for _, theme := range []string{"light", "dark"} {
		for i, p := range pages {
			got := get(t, base, "", p.path, "Cookie", "folio_theme="+theme).must(t, p.status, p.name)
			f := filepath.Join(dir, fmt.Sprintf("%02d-%s.html", i, theme))
			if err := os.WriteFile(f, []byte(got.body), 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			names[f] = p.name + " (" + theme + ") " + p.path
		}
	}
	config := filepath.Join(dir, "htmlvalidate.json")
	// Recommended, but ids checked as HTML5 has them: footnotes' ids are
	// goldmark's fn:1 and fnref:1, valid HTML that links already point at.
	rules := `{"extends": ["html-validate:recommended"], "rules": {"valid-id": ["error", {"relaxed": true}]}}`
	if err := os.WriteFile(config, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{filepath.Join(kitDir, "node_modules/html-validate/bin/html-validate.mjs"),
		"--config", config, "--formatter", "json"}, files...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.Output()
	var reports []struct {
		FilePath   string `json:"filePath"`
		ErrorCount int    `json:"errorCount"`
		Messages   []struct {
			RuleID   string `json:"ruleId"`
			Severity int    `json:"severity"`
			Message  string `json:"message"`
			Line     int    `json:"line"`
			Selector string `json:"selector"`
		} `json:"messages"`
	}
	if jerr := json.Unmarshal(out, &reports); jerr != nil {
		t.Fatalf("html-validate: %v (%v)\n%s", err, jerr, out)
	}
	errors := 0
	for _, r := range reports {
		errors += r.ErrorCount
		for _, m := range r.Messages {
			level := "warning"
			if m.Severity == 2 {
				level = "error"
			}
			t.Errorf("%s: %s %s: %s (line %d, %s)", names[r.FilePath], level, m.RuleID, m.Message, m.Line, m.Selector)
		}
	}
	t.Logf("html-validate: %d pages, %d errors", len(files), errors)
}

// checkAxe runs axe-core in Chromium on each page in four themes: chosen
// light and dark (the visitor's cookie), and the system's light and dark
// when the site's themes.default is "system". It checks the theme the page
// shows is the one asked for.
func checkAxe(t *testing.T, bin string, s *testkit.Server, d *docs, pages []qualityPage) {
	axe, err := os.ReadFile(filepath.Join(kitDir, "node_modules/axe-core/axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	// The 404 page is asked for on purpose.
	browser := testkit.NewBrowser(t, bin, s.URL, 5*time.Minute, func(e *cdplog.Entry) bool { return e.Source == cdplog.EntrySourceNetwork })
	ctx := browser.Ctx
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/healthz")); err != nil {
		t.Fatal(err)
	}
	setSystem := func(scheme string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		})
	}
	clearTheme := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.DeleteCookies, network.DeleteCookiesParams{Name: "folio_theme", URL: s.URL + "/s/docs/"})
		return err
	})
	chooseTheme := func(theme string) chromedp.Action[chromedp.Void] {
		return chromedp.Navigate(s.URL + "/s/docs/_theme?to=" + theme + "&back=/s/docs/")
	}
	modes := []struct {
		name  string
		dark  bool // the page must be dark
		setup []chromedp.Action[chromedp.Void]
	}{
		{"light", false, []chromedp.Action[chromedp.Void]{setSystem("dark"), chooseTheme("light")}},
		{"dark", true, []chromedp.Action[chromedp.Void]{setSystem("light"), chooseTheme("dark")}},
		{"system light", false, []chromedp.Action[chromedp.Void]{clearTheme, setSystem("light")}},
		{"system dark", true, []chromedp.Action[chromedp.Void]{clearTheme, setSystem("dark")}},
	}
	audit := func(what string, dark bool) {
		t.Helper()
		// The body's background is dark when its red channel is low; the
		// one theme link shown leads away from the theme shown.
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
			const dark = parseInt(getComputedStyle(document.body).backgroundColor.match(/\d+/)[0]) < 128;
			const shown = [...document.querySelectorAll("a.theme")].filter(a => getComputedStyle(a).display !== "none").map(a => a.className);
			return (dark ? "dark" : "light") + " " + (shown.join(",") || "none");
		})()`))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := "light theme to-dark"
		if dark {
			want = "dark theme to-light"
		}
		if state != want && state != strings.Fields(want)[0]+" none" {
			t.Errorf("%s: the page is %q, want %q", what, state, want)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(axe)+";true")); err != nil {
			t.Fatalf("%s: loading axe-core: %v", what, err)
		}
		report, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" ") + ": " + n.failureSummary)}))))`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: axe-core: %v", what, err)
		}
		var violations []struct {
			ID, Impact, Help string
			Nodes            []string
		}
		if err := json.Unmarshal([]byte(report), &violations); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, report)
		}
		for _, v := range violations {
			t.Errorf("%s: %s (%s): %s, %d elements:\n  %s", what, v.ID, v.Impact, v.Help, len(v.Nodes), strings.Join(v.Nodes[:min(len(v.Nodes), 5)], "\n  "))
		}
	}
	open := func(what, path string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+path), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	for _, m := range modes {
		if strings.HasPrefix(m.name, "system") {
			// The stored value the customization API keeps for "follow the
			// system" (written straight: the reader's side is tested here).
			d.setThemeDefault(t, "system")
		}
		if err := chromedp.Do(ctx, m.setup...); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		for _, p := range pages {
			what := p.name + " (" + m.name + ") " + p.path
			open(what, p.path)
			audit(what, m.dark)
		}
		if strings.HasPrefix(m.name, "system") {
			// On a phone too, the menu open.
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
				t.Fatal(err)
			}
			for _, p := range pages[:2] {
				what := p.name + " (" + m.name + ", phone) " + p.path
				open(what, p.path)
				if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`label.menu-label`)), chromedp.WaitVisible(chromedp.CSS(`aside.sidebar`))); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				audit(what, m.dark)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
				t.Fatal(err)
			}
			d.setThemeDefault(t, "light")
		}
	}
	browser.Check(t)
}

// setThemeDefault stores the site's customization with themes.default set
// to theme.
func (d *docs) setThemeDefault(t *testing.T, theme string) {
	t.Helper()
	c := api(t, d.s, d.token, "GET", d.siteBase()+"/customization", nil, 200)
	c["themes"].(map[string]any)["default"] = theme
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	d.s.Client().Site.UpdateOneID(d.site).SetCustomization(string(raw)).ExecX(testkit.Fixture(context.Background()))
}

// TestReaderSEO runs Lighthouse's SEO category over the home and a page of
// the site, in a Chromium it launches (on this machine: nothing leaves
// localhost), and wants a score of at least 0.95. Once is enough: the pages
// are the same on either database.
func TestReaderSEO(t *testing.T) {
	bin := testkit.Chromium(t, "the reader's Lighthouse check")
	node := nodeTools(t)
	s := testkit.StartJobs(t, testkit.Databases(t)[0], nil)
	_, pages := qualitySite(t, s)
	for _, p := range pages[:2] {
		t.Run(p.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report.json")
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, filepath.Join(kitDir, "node_modules/lighthouse/cli/index.js"), s.URL+p.path,
				"--only-categories=seo", "--output=json", "--output-path="+out, "--quiet",
				"--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --disable-background-networking --disable-component-update --disable-sync",
			)
			cmd.Env = append(os.Environ(), "CHROME_PATH="+bin, "NO_COLOR=1")
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("lighthouse: %v\n%s", err, msg)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var report struct {
				Categories map[string]struct {
					Score     float64 `json:"score"`
					AuditRefs []struct {
						ID     string  `json:"id"`
						Weight float64 `json:"weight"`
					} `json:"auditRefs"`
				} `json:"categories"`
				Audits map[string]struct {
					Title            string          `json:"title"`
					Score            *float64        `json:"score"`
					ScoreDisplayMode string          `json:"scoreDisplayMode"`
					Explanation      string          `json:"explanation"`
					Details          json.RawMessage `json:"details"`
				} `json:"audits"`
				RuntimeError *struct{ Code, Message string } `json:"runtimeError"`
			}
			if err := json.Unmarshal(raw, &report); err != nil {
				t.Fatal(err)
			}
			if report.RuntimeError != nil {
				t.Fatalf("lighthouse: %s: %s", report.RuntimeError.Code, report.RuntimeError.Message)
			}
			seo := report.Categories["seo"]
			for _, ref := range seo.AuditRefs {
				if a := report.Audits[ref.ID]; ref.Weight > 0 && a.Score != nil && *a.Score < 1 {
					t.Logf("%s: failed audit %s (%s, weight %v): %s %s", p.path, ref.ID, a.Title, ref.Weight, a.Explanation, a.Details)
				}
			}
			t.Logf("%s: Lighthouse SEO %.2f", p.path, seo.Score)
			if seo.Score < 0.95 {
				t.Errorf("%s: Lighthouse SEO score %.2f, want at least 0.95", p.path, seo.Score)
			}
		})
	}
}
