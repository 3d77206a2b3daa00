package gitsync

import (
	"mime"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Files live under .gitbook/assets/ by name; page markdown refers to them
// as /files/<Ref> in Folio and by a relative path in the repository.

// assetPaths maps Folio's file refs to their files' root-relative paths.
type assetPaths struct {
	byRef  map[string]string
	maxRef int
}

// placeAssets writes the files under .gitbook/assets/, in order, names
// made unique as GitBook does ("image (1).png"), and sets their Path.
func placeAssets(files []*File, out map[string][]byte) assetPaths {
	a := assetPaths{byRef: map[string]string{}}
	taken := map[string]bool{}
	for _, f := range files {
		name := safeName(f.Name)
		stem, ext := splitExt(name)
		for i := 1; taken[strings.ToLower(name)]; i++ {
			name = stem + " (" + strconv.Itoa(i) + ")" + ext
		}
		taken[strings.ToLower(name)] = true
		f.Path = assetsDir + "/" + name
		data := f.Data
		if data == nil {
			data = []byte{}
		}
		out[f.Path] = data
		if _, dup := a.byRef[f.Ref]; f.Ref != "" && !dup {
			a.byRef[f.Ref] = f.Path
			a.maxRef = max(a.maxRef, len(f.Ref))
		}
	}
	return a
}

// safeName is a file name that is one path segment on every file system:
// no slashes, no control characters, not "." or "..", not too long.
func safeName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\':
			return '_'
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	const maxName = 200 // bytes; most file systems take 255
	if len(name) > maxName {
		stem, ext := splitExt(name)
		if len(ext) > 20 {
			stem, ext = name, ""
		}
		cut := maxName - len(ext)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		name = stem[:cut] + ext
	}
	return name
}

// splitExt splits "a.tar.gz" into "a.tar" and ".gz"; a leading dot is no
// extension.
func splitExt(name string) (string, string) {
	ext := path.Ext(name)
	if ext == name {
		return name, ""
	}
	return strings.TrimSuffix(name, ext), ext
}

// refOpeners may come right before a reference to a file: the start of a
// link destination, a quoted attribute, a reference definition.
const refOpeners = " \t\n(<\"'="

func opensRef(s string, i int) bool {
	return i == 0 || strings.IndexByte(refOpeners, s[i-1]) >= 0
}

// endsRef may come right after a file's ref in /files/<Ref>.
func endsRef(c byte) bool {
	return strings.IndexByte(" \t\n)>\"'#?]`", c) >= 0
}

// toRelative rewrites the references /files/<Ref> of a body into relative
// paths from dir (the page's folder) to the files. A ref is matched whole
// (the longest known one ending where a reference may), so an id that
// starts another is never taken for it.
func (a assetPaths) toRelative(body, dir string) string {
	const marker = "/files/"
	if len(a.byRef) == 0 || !strings.Contains(body, marker) {
		return body
	}
	up := ""
	if dir != "." && dir != "" {
		up = strings.Repeat("../", strings.Count(dir, "/")+1)
	}
	var b strings.Builder
	last := 0
	for i := 0; ; {
		k := strings.Index(body[i:], marker)
		if k < 0 {
			break
		}
		at := i + k
		i = at + len(marker)
		if !opensRef(body, at) {
			continue
		}
		rest := body[i:]
		best := 0
		for n := 1; n <= len(rest) && n <= a.maxRef; n++ {
			if _, ok := a.byRef[rest[:n]]; ok && (n == len(rest) || endsRef(rest[n])) {
				best = n
			}
			if rest[n-1] == '\n' {
				break
			}
		}
		if best == 0 {
			continue
		}
		b.WriteString(body[last:at])
		b.WriteString(escapePath(up + a.byRef[rest[:best]]))
		i += best
		last = i
	}
	b.WriteString(body[last:])
	return b.String()
}

// escapePath percent-encodes a path for a link destination: everything
// but unreserved characters and '/', so it holds no space, parenthesis,
// bracket or quote, whatever the markdown around it.
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
			(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hexByte(c)))
	}
	return b.String()
}

// indexAssets keys the files by their path relative to the root.
func indexAssets(files []*File, root string) map[string]*File {
	m := map[string]*File{}
	for _, f := range files {
		if rel, ok := underRoot(f.Path, root); ok {
			m[rel] = f
		}
	}
	return m
}

// toRefs rewrites the references of a body (in the root-relative folder
// dir) to files under .gitbook/assets/ into /files/<Ref>: relative paths,
// paths from the root ("/.gitbook/assets/x.png", or ".gitbook/assets/x.png"
// from a page in a folder, as GitBook sometimes writes), percent-encoded or
// not (between <> or quotes, where spaces may be). References to files
// that are not there stay as they are.
func (d *decoder) toRefs(body, dir string) string {
	const marker = assetsDir + "/"
	if len(d.assets) == 0 || !strings.Contains(body, marker) {
		return body
	}
	var b strings.Builder
	last := 0
	for i := 0; ; {
		k := strings.Index(body[i:], marker)
		if k < 0 {
			break
		}
		at := i + k
		i = at + len(marker)
		start := at
		for start > last && (body[start-1] == '.' || body[start-1] == '/') {
			start--
		}
		if !opensRef(body, start) || !dotsPrefix(body[start:at]) {
			continue
		}
		opener := byte(0)
		if start > 0 {
			opener = body[start-1]
		}
		raw := body[start:refEnd(body, i, opener)]
		f, n := d.resolveAsset(raw, dir)
		if f == nil {
			continue
		}
		b.WriteString(body[last:start])
		b.WriteString("/files/" + f.Ref)
		last = start + n
		i = last
	}
	b.WriteString(body[last:])
	return b.String()
}

// dotsPrefix reports a prefix of "./" and "../" segments, possibly from
// "/".
func dotsPrefix(s string) bool {
	s = strings.TrimPrefix(s, "/")
	for s != "" {
		switch {
		case strings.HasPrefix(s, "./"):
			s = s[2:]
		case strings.HasPrefix(s, "../"):
			s = s[3:]
		default:
			return false
		}
	}
	return true
}

// refEnd is where a reference starting before i ends: at the closing
// character of its opener (<, " or '), else at a space, a quote, an angle
// bracket or a parenthesis that closes the link.
func refEnd(s string, i int, opener byte) int {
	closer := map[byte]byte{'<': '>', '"': '"', '\'': '\''}[opener]
	depth := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			return i
		}
		if closer != 0 {
			if c == closer {
				return i
			}
			continue
		}
		switch c {
		case ' ', '\t', '"', '<', '>', ']':
			return i
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return i
}

// resolveAsset finds the file raw refers to from dir, trying it whole,
// then without a #fragment or ?query; n is how much of raw names it.
func (d *decoder) resolveAsset(raw, dir string) (*File, int) {
	candidates := []string{raw}
	for _, sep := range []string{"#", "?"} {
		if i := strings.Index(raw, sep); i > 0 {
			candidates = append(candidates, raw[:i])
		}
	}
	for _, c := range candidates {
		p := c
		if u, err := url.PathUnescape(c); err == nil {
			p = u
		}
		tries := []string{cleanRel(p)}
		if !strings.HasPrefix(p, "/") {
			tries = []string{cleanRel(path.Join(dir, p)), cleanRel(p)}
		}
		for _, rel := range tries {
			if f := d.assets[rel]; f != nil {
				return f, len(c)
			}
		}
	}
	return nil, 0
}

// assetTypes are the content types of common files, so Decode gives the
// same on every machine (mime's tables read the system's files).
var assetTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".svg": "image/svg+xml", ".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon",
	".bmp": "image/bmp", ".tif": "image/tiff", ".tiff": "image/tiff",
	".pdf": "application/pdf", ".json": "application/json", ".zip": "application/zip",
	".yaml": "application/yaml", ".yml": "application/yaml", ".xml": "application/xml",
	".txt": "text/plain; charset=utf-8", ".csv": "text/csv; charset=utf-8",
	".md": "text/markdown; charset=utf-8", ".html": "text/html; charset=utf-8",
	".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
	".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg",
}

// contentType is a file's type by its extension.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := assetTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}
