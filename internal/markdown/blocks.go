package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitBook's block syntax: a line `{% name attr="value" ... %}` opens a block
// and a line `{% endname %}` closes it; what lies between is markdown. The
// blocks Folio reads:
//
//	hint                 style="info|success|warning|danger"; body: markdown
//	tabs                 body: tab blocks
//	tab                  title="..."; only directly inside tabs; body: markdown
//	content-ref          url="..."; body (optional): usually a link to the same place
//	embed                url="..."; void, or a caption body closed by endembed
//	openapi-operation    spec="<slug>" path="/pets" method="get"; body optional
//	openapi-schemas      spec="<slug>" schemas="A,B" [grouped="false"]; body optional
//	if                   condition="visitor.claims.beta == true"; body: markdown shown only to
//	                     visitors whose claims satisfy the condition (adaptive content)
//
// Anything else between {% and %} (an unknown name, a malformed attribute, a
// tab outside tabs, an end tag without its block) stays plain text. The tag
// must be alone on its line (up to three spaces before it). Attribute values
// are double-quoted; a backslash escapes the next character. The blocks that
// may be void (content-ref, embed, openapi-*) have a body only when their end
// tag follows within a few lines (see voidLookahead); the others run to their
// end tag or to the end of the container they are in.
const (
	// MaxBlockNesting is how deep GitBook blocks nest in one another; a
	// tag deeper than this is plain text.
	MaxBlockNesting = 8
	// MaxBlockAttrs is the most attributes a block tag may have.
	MaxBlockAttrs = 8
	// MaxBlockAttrLen is the longest attribute value, in bytes.
	MaxBlockAttrLen = 2048
)

// blockSpec says how a block name is read.
type blockSpec struct {
	required  []string // attributes that must be present
	voidable  bool     // may be void: a body only with an end tag close by
	inTabs    bool     // only directly inside a tabs block
	container bool     // has a markdown body (always when not voidable)
}

var blockSpecs = map[string]blockSpec{
	"hint":              {container: true},
	"tabs":              {container: true},
	"tab":               {container: true, inTabs: true},
	"content-ref":       {required: []string{"url"}, voidable: true},
	"embed":             {required: []string{"url"}, voidable: true},
	"openapi-operation": {required: []string{"spec", "path", "method"}, voidable: true},
	"openapi-schemas":   {required: []string{"spec", "schemas"}, voidable: true},
	"if":                {required: []string{"condition"}, container: true},
}

// KindBlock is the ast.NodeKind of a GitBook block.
var KindBlock = ast.NewNodeKind("GitBookBlock")

// BlockNode is a GitBook block in goldmark's AST. Its children are the
// blocks of its body (none when Void).
type BlockNode struct {
	ast.BaseBlock
	Name  string            // hint, tabs, tab, content-ref, embed, openapi-operation, openapi-schemas
	Attrs map[string]string // unescaped attribute values
	Void  bool              // written without a body or end tag
	// Body is the source of the body as written, between the tag lines.
	bodyStart, bodyStop int
}

// Kind implements ast.Node.
func (n *BlockNode) Kind() ast.NodeKind { return KindBlock }

// Dump implements ast.Node.
func (n *BlockNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Name": n.Name}, nil)
}

// Body is the markdown source between the block's tag lines ("" when void).
func (n *BlockNode) Body(src []byte) string {
	if n.Void || n.bodyStop <= n.bodyStart || n.bodyStop > len(src) {
		return ""
	}
	return string(src[n.bodyStart:n.bodyStop])
}

// blockExtension adds the GitBook blocks to a goldmark.
type blockExtension struct{}

func (blockExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithBlockParsers(util.Prioritized(blockParser{}, 50)))
}

// blockParser reads the tags.
type blockParser struct{}

func (blockParser) Trigger() []byte { return []byte{'{'} }

func (blockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	name, attrs, end, ok := parseTag(line)
	if !ok || end {
		return nil, parser.NoChildren
	}
	spec, known := blockSpecs[name]
	if !known {
		return nil, parser.NoChildren
	}
	for _, r := range spec.required {
		if attrs[r] == "" {
			return nil, parser.NoChildren
		}
	}
	if p, isBlock := parent.(*BlockNode); spec.inTabs && (!isBlock || p.Name != "tabs") {
		return nil, parser.NoChildren
	}
	if blockDepth(parent) >= MaxBlockNesting {
		return nil, parser.NoChildren
	}
	n := &BlockNode{Name: name, Attrs: attrs}
	n.bodyStart = seg.Stop
	n.bodyStop = seg.Stop
	reader.AdvanceToEOL()
	if spec.voidable && !endFollows(reader.Source(), seg.Stop, name) {
		n.Void = true
		return n, parser.NoChildren
	}
	return n, parser.HasChildren
}

func (blockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	n := node.(*BlockNode)
	if n.Void {
		return parser.Close
	}
	line, seg := reader.PeekLine()
	if name, _, end, ok := parseTag(line); ok && end && name == n.Name {
		n.bodyStop = seg.Start
		reader.AdvanceToEOL()
		return parser.Close
	}
	n.bodyStop = seg.Stop
	return parser.Continue | parser.HasChildren
}

func (blockParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}
func (blockParser) CanInterruptParagraph() bool                                { return true }
func (blockParser) CanAcceptIndentedLine() bool                                { return false }

// blockDepth is the number of GitBook blocks n is inside (n included).
func blockDepth(n ast.Node) int {
	d := 0
	for ; n != nil; n = n.Parent() {
		if n.Kind() == KindBlock {
			d++
		}
	}
	return d
}

// voidLookahead bounds the search for the end tag of a voidable block: a
// few lines and bytes, so that many void embeds cost linear time.
const (
	voidLookaheadLines = 32
	voidLookaheadBytes = 8 << 10
)

// endFollows reports whether the end tag of a voidable block appears within
// the lookahead after offset, before another tag of the same name. Lines are
// read raw: block quote markers are skipped, other container prefixes only
// as leading white space.
func endFollows(src []byte, offset int, name string) bool {
	rest := src[offset:]
	if len(rest) > voidLookaheadBytes {
		rest = rest[:voidLookaheadBytes]
	}
	for i := 0; i < voidLookaheadLines && len(rest) > 0; i++ {
		line := rest
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			line, rest = rest[:j+1], rest[j+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimLeft(line, " \t>")
		if n, _, end, ok := parseTag(line); ok && n == name {
			return end
		}
	}
	return false
}

// parseTag reads a line holding only a tag: `{% name attrs %}` or
// `{% endname %}` (end is then set and name is without "end"). Up to three
// spaces may precede it.
func parseTag(line []byte) (name string, attrs map[string]string, end, ok bool) {
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	if indent > 3 {
		return "", nil, false, false
	}
	s := strings.TrimSpace(string(line[indent:]))
	if !strings.HasPrefix(s, "{%") || !strings.HasSuffix(s, "%}") || len(s) < 4 {
		return "", nil, false, false
	}
	s = strings.TrimSpace(s[2 : len(s)-2])
	i := 0
	for i < len(s) && (s[i] == '-' || s[i] >= 'a' && s[i] <= 'z') {
		i++
	}
	name, s = s[:i], s[i:]
	if name == "" || len(name) > 32 {
		return "", nil, false, false
	}
	if strings.HasPrefix(name, "end") {
		if _, known := blockSpecs[name[3:]]; known {
			if strings.TrimSpace(s) != "" {
				return "", nil, false, false
			}
			return name[3:], nil, true, true
		}
	}
	if _, known := blockSpecs[name]; !known {
		return "", nil, false, false
	}
	attrs, ok = parseAttrs(s)
	if !ok {
		return "", nil, false, false
	}
	return name, attrs, false, true
}

// parseAttrs reads ` a="x" b="y \" z"`: names of letters, digits, '-' and
// '_'; double-quoted values where a backslash escapes the next character. At
// most MaxBlockAttrs attributes of at most MaxBlockAttrLen bytes; a name given
// twice, or anything else, fails.
func parseAttrs(s string) (map[string]string, bool) {
	attrs := map[string]string{}
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return attrs, true
		}
		if len(attrs) >= MaxBlockAttrs {
			return nil, false
		}
		start := i
		for i < len(s) && (s[i] == '-' || s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
			i++
		}
		key := s[start:i]
		if key == "" || len(key) > 32 || i+1 >= len(s) || s[i] != '=' || s[i+1] != '"' {
			return nil, false
		}
		if _, dup := attrs[key]; dup {
			return nil, false
		}
		i += 2
		var v strings.Builder
		closed := false
		for i < len(s) {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				v.WriteByte(s[i+1])
				i += 2
			} else if c == '"' {
				i++
				closed = true
				break
			} else {
				v.WriteByte(c)
				i++
			}
			if v.Len() > MaxBlockAttrLen {
				return nil, false
			}
		}
		if !closed || (i < len(s) && s[i] != ' ' && s[i] != '\t') {
			return nil, false
		}
		attrs[key] = strings.ToValidUTF8(v.String(), "\uFFFD")
	}
}

// quoteAttr writes an attribute value as parseAttrs reads it; line breaks
// (which a tag line cannot hold) become spaces.
func quoteAttr(v string) string {
	v = strings.NewReplacer("\\", "\\\\", "\"", "\\\"", "\r\n", " ", "\n", " ", "\r", " ").Replace(v)
	return "\"" + v + "\""
}

// blockTag writes an opening tag with attributes in the order given.
func blockTag(name string, kv ...string) string {
	var b strings.Builder
	b.WriteString("{% " + name)
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(" " + kv[i] + "=" + quoteAttr(kv[i+1]))
	}
	b.WriteString(" %}")
	return b.String()
}
