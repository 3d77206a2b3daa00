package gitsync

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/folio/folio/internal/markdown"
)

// The files of GitBook's layout, as Git Sync writes them.
const (
	configFile     = ".gitbook.yaml"
	assetsDir      = ".gitbook/assets"
	defaultReadme  = "README.md"
	defaultSummary = "SUMMARY.md"
	folderReadme   = "README.md" // a page with subpages lives in <slug>/README.md
)

// Page kinds.
const (
	kindDocument = "document"
	kindGroup    = "group"
	kindLink     = "link"
)

// gitbookConfig is .gitbook.yaml. Fields are in GitBook's order; yaml.v3
// sorts the redirects, so the file is the same for the same Tree.
type gitbookConfig struct {
	Root      string            `yaml:"root"`
	Structure gitbookStructure  `yaml:"structure"`
	Redirects map[string]string `yaml:"redirects,omitempty"`
}

type gitbookStructure struct {
	Readme  string `yaml:"readme"`
	Summary string `yaml:"summary"`
}

// Encode lays a Tree out as GitBook's Git Sync does: .gitbook.yaml,
// SUMMARY.md, a markdown file per document page and the files under
// .gitbook/assets/. Paths are relative to the project directory. It sets
// Page.Path and File.Path on t, so the caller knows which file holds what.
// The same Tree always gives the same bytes.
func Encode(t *Tree) (map[string][]byte, error) {
	if t == nil {
		t = &Tree{}
	}
	out := map[string][]byte{}
	cfg, err := marshalYAML(gitbookConfig{
		Root:      "./",
		Structure: gitbookStructure{Readme: defaultReadme, Summary: defaultSummary},
		Redirects: t.Redirects,
	})
	if err != nil {
		return nil, fmt.Errorf("the redirects cannot be written to %s: %v", configFile, err)
	}
	out[configFile] = cfg
	e := &encoder{out: out, assets: placeAssets(t.Files, out)}
	summary, err := e.summary(t.Pages)
	if err != nil {
		return nil, err
	}
	out[defaultSummary] = summary
	return out, nil
}

// Decode reads a repository in GitBook's layout (files relative to the
// project directory) back into a Tree. It honours .gitbook.yaml's root and
// structure; pages follow SUMMARY.md, then come the markdown files it does
// not list, by path (without a SUMMARY.md, all of them, by folder). It
// refuses a page file that is not UTF-8 text or is larger than a page may
// hold, naming the file.
func Decode(files map[string][]byte) (*Tree, error) {
	byPath := map[string][]byte{}
	for name, data := range files {
		if p := cleanRel(name); p != "" {
			byPath[p] = data
		}
	}
	cfg, err := readConfig(byPath[configFile])
	if err != nil {
		return nil, err
	}
	d := &decoder{
		root:    cfg.Root,
		readme:  cfg.Structure.Readme,
		docs:    map[string]string{},
		used:    map[string]bool{},
		pages:   map[string]*Page{},
		rels:    map[*Page]string{},
		folders: map[string]*Page{},
	}
	tree := &Tree{Redirects: cfg.Redirects}
	var summary []byte
	hasSummary := false
	var docNames []string
	for name, data := range byPath {
		rel, ok := underRoot(name, d.root)
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(rel, assetsDir+"/"):
			tree.Files = append(tree.Files, &File{Ref: name, Name: path.Base(rel), ContentType: contentType(rel), Data: data, Path: name})
		case rel == cfg.Structure.Summary:
			summary, hasSummary = data, true
		case isMarkdownName(rel) && !hasDotSegment(rel):
			docNames = append(docNames, rel)
		}
	}
	sort.Slice(tree.Files, func(i, j int) bool { return tree.Files[i].Path < tree.Files[j].Path })
	d.assets = indexAssets(tree.Files, d.root)
	sort.Strings(docNames)
	if hasSummary {
		if err := checkPageFile(path.Join(d.root, cfg.Structure.Summary), summary); err != nil {
			return nil, err
		}
	}
	for _, rel := range docNames {
		data := byPath[d.project(rel)]
		if err := checkPageFile(d.project(rel), data); err != nil {
			return nil, err
		}
		d.docs[rel] = string(data)
	}
	if hasSummary {
		tree.Pages = d.fromSummary(string(summary), path.Dir(cfg.Structure.Summary))
	}
	var rest []string
	for _, rel := range docNames {
		if !d.used[rel] {
			rest = append(rest, rel)
		}
	}
	tree.Pages = d.fromFolders(tree.Pages, rest)
	d.settleSlugs(tree.Pages)
	return tree, nil
}

// readConfig reads .gitbook.yaml (absent: GitBook's defaults), its paths
// cleaned: Root relative to the project directory ("" for itself), the
// structure's files relative to the root.
func readConfig(data []byte) (gitbookConfig, error) {
	var c gitbookConfig
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &c); err != nil {
			return c, fmt.Errorf("%s is not valid: %v", configFile, err)
		}
	}
	c.Root = cleanRel(c.Root)
	if c.Structure.Readme = cleanRel(c.Structure.Readme); c.Structure.Readme == "" {
		c.Structure.Readme = defaultReadme
	}
	if c.Structure.Summary = cleanRel(c.Structure.Summary); c.Structure.Summary == "" {
		c.Structure.Summary = defaultSummary
	}
	if len(c.Redirects) == 0 {
		c.Redirects = nil
	}
	return c, nil
}

// checkPageFile refuses what cannot become a page body: more than a page
// may hold, a NUL byte (no database text holds one) or bytes that are not
// UTF-8.
func checkPageFile(name string, data []byte) error {
	if len(data) > markdown.MaxBytes {
		return &LimitError{Bound: "bytes", Message: fmt.Sprintf(
			"%s is larger than the %d bytes (1 MB) a page may hold", name, markdown.MaxBytes)}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return fmt.Errorf("%s holds a NUL byte: a page must be text", name)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%s is not UTF-8 text", name)
	}
	return nil
}

// cleanRel makes a path relative to the directory it is given in: no
// leading "/" or "./", no "..", which cannot climb above it ("" for the
// directory itself).
func cleanRel(p string) string {
	return strings.TrimPrefix(path.Clean("/"+strings.TrimSpace(p)), "/")
}

// underRoot is name relative to root, when it lies under it.
func underRoot(name, root string) (string, bool) {
	if root == "" {
		return name, true
	}
	rel, ok := strings.CutPrefix(name, root+"/")
	return rel, ok && rel != ""
}

func isMarkdownName(name string) bool {
	return strings.EqualFold(path.Ext(name), ".md")
}

// hasDotSegment reports a path in or to a hidden file or folder
// (.gitbook/, .github/...): those are not pages.
func hasDotSegment(name string) bool {
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// kindOf is a page's kind, document when unset.
func kindOf(p *Page) string {
	if p.Kind == "" {
		return kindDocument
	}
	return p.Kind
}

// marshalYAML writes YAML indented by two spaces, as GitBook does; map keys
// come sorted.
func marshalYAML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func deref(b *bool) bool { return b != nil && *b }
