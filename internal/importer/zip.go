package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"mime"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/folio/folio/internal/markdown"
)

var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true}

// centralHeader starts every entry of a zip's central directory.
var centralHeader = []byte("PK\x01\x02")

// Zip imports a tree of markdown files. With a SUMMARY.md, pages follow its
// nested list; files it does not list come after, by path. Without one,
// folders become pages (their README.md as body) in path order. Images
// become files and image links to them point at the files.
//
// The bounds hold before anything is unpacked, so an archive that unpacks
// to gigabytes costs no more than its own bytes: the entry count is checked
// before the reader indexes the entries, and the declared unpacked sizes of
// the entries read must fit their kind's limit (MaxMarkdownEntry,
// MaxImageEntry) and MaxImportBytes together. What an entry declares is
// then trusted for nothing: each is unpacked through a limit of what it may
// still hold, plus one byte to see it pass (readEntry), so an entry that
// lies is refused after at most its limit, and an import never holds more
// than MaxImportBytes unpacked. It stops between entries once ctx ends
// (the client left, the request's time ran out), with ctx's error.
func Zip(ctx context.Context, data []byte) (Result, error) {
	// The reader builds a File for every header of the central directory,
	// however many the end record announces; every header starts with the
	// signature, so its count in the bytes bounds theirs.
	if bytes.Count(data, centralHeader) > MaxZipFiles {
		return Result{}, tooManyEntries()
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Result{}, &Error{Message: "is not a zip archive"}
	}
	if len(zr.File) > MaxZipFiles {
		return Result{}, tooManyEntries()
	}
	names := make([]string, len(zr.File))
	for i, f := range zr.File {
		names[i] = entryName(f)
	}
	prefix := commonRoot(names)
	type entry struct {
		file            *zip.File
		full, name, ext string
	}
	var entries []entry
	var total uint64
	for i, f := range zr.File {
		full := names[i]
		if strings.ContainsRune(full, 0) {
			return Result{}, &Error{Entry: full, Message: "has a NUL byte in its name"}
		}
		if f.FileInfo().IsDir() || strings.HasPrefix(path.Base(full), ".") || strings.Contains(full, "__MACOSX") {
			continue
		}
		name := strings.TrimPrefix(path.Clean("/"+full), "/")
		name = strings.TrimPrefix(name, prefix)
		ext := strings.ToLower(path.Ext(name))
		if ext != ".md" && !imageExt[ext] {
			continue
		}
		if f.UncompressedSize64 > entryLimit(ext) {
			return Result{}, entryTooLarge(full, ext)
		}
		if f.UncompressedSize64 > MaxImportBytes-total {
			return Result{}, pastBudget(full)
		}
		total += f.UncompressedSize64
		entries = append(entries, entry{f, full, name, ext})
	}

	docs := map[string]string{}
	res := Result{Total: len(entries)}
	files := map[string]*File{}
	var read uint64 // bytes unpacked so far, whatever the entries declared
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		unpacked.Add(1)
		body, err := readEntry(e.file, e.full, e.ext, MaxImportBytes-read)
		if err != nil {
			return Result{}, err
		}
		read += uint64(len(body))
		if e.ext == ".md" {
			if err := checkText(body); err != nil {
				return Result{}, &Error{Entry: e.full, Message: err.Error()}
			}
			docs[e.name] = string(body)
			continue
		}
		files[e.name] = &File{Name: path.Base(e.name), Data: body, ContentType: mime.TypeByExtension(e.ext), Token: fmt.Sprintf("folio-import-%d", len(files))}
	}
	names = make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		res.Files = append(res.Files, files[n])
	}
	build := func(name string) *Page {
		src := rewriteImages(docs[name], path.Dir(name), files)
		title := markdown.Parse(src).Title
		if title == "" && path.Base(name) == "README.md" && path.Dir(name) != "." {
			title = titleFromName(path.Dir(name)) // a folder's page, named by the folder
		}
		if title == "" {
			title = titleFromName(name)
		}
		return &Page{Title: title, Markdown: src}
	}
	if summary, ok := docs["SUMMARY.md"]; ok {
		used := map[string]bool{"SUMMARY.md": true}
		res.Pages = fromSummary(summary, docs, used, build)
		var rest []string
		for n := range docs {
			if !used[n] {
				rest = append(rest, n)
			}
		}
		sort.Strings(rest)
		for _, n := range rest {
			res.Pages = append(res.Pages, build(n))
		}
		return res, nil
	}
	res.Pages = fromFolders(docs, build)
	return res, nil
}

func tooManyEntries() *Error {
	return &Error{TooLarge: true, Message: fmt.Sprintf("the archive holds more than %d entries", MaxZipFiles)}
}

var errDamaged = errors.New("is damaged or does not unpack to the size it declares")

// entryLimit is the most an entry of this kind may unpack to: a markdown
// file becomes one page body, an image one file.
func entryLimit(ext string) uint64 {
	if ext == ".md" {
		return MaxMarkdownEntry
	}
	return MaxImageEntry
}

func entryTooLarge(name, ext string) *Error {
	if ext == ".md" {
		return &Error{Entry: name, TooLarge: true,
			Message: fmt.Sprintf("is larger than the %d MB a page's markdown may hold", MaxMarkdownEntry>>20)}
	}
	return &Error{Entry: name, TooLarge: true, Message: fmt.Sprintf("is larger than the %d MB an imported file may hold", MaxImageEntry>>20)}
}

func pastBudget(name string) *Error {
	return &Error{Entry: name, TooLarge: true,
		Message: fmt.Sprintf("brings the archive past the %d MB an import may unpack", MaxImportBytes>>20)}
}

// readEntry unpacks f, named name, through a limit: the smaller of its
// kind's limit and budget (what the import may still unpack), plus one
// byte to see an entry pass it. The declared size only sizes the buffer
// (never past the limit); an entry that unpacks to more than the limit is
// refused after reading limit+1 bytes, and one that unpacks to another size
// than it declares, or fails its checksum, is damaged.
func readEntry(f *zip.File, name, ext string, budget uint64) ([]byte, error) {
	limit := min(entryLimit(ext), budget)
	rc, err := f.Open()
	if err != nil {
		return nil, &Error{Entry: name, Message: "cannot be unpacked (an unsupported compression method or a damaged archive)"}
	}
	defer rc.Close()
	buf := bytes.NewBuffer(make([]byte, 0, min(f.UncompressedSize64, limit)+1))
	// Reading to the end makes the reader check the checksum and refuse
	// bytes past the declared size.
	_, err = buf.ReadFrom(io.LimitReader(rc, int64(limit)+1))
	switch {
	case uint64(buf.Len()) > limit && limit == budget && budget < entryLimit(ext):
		return nil, pastBudget(name)
	case uint64(buf.Len()) > limit:
		return nil, entryTooLarge(name, ext)
	case err != nil || uint64(buf.Len()) != f.UncompressedSize64:
		return nil, &Error{Entry: name, Message: errDamaged.Error()}
	}
	return buf.Bytes(), nil
}

// checkText refuses what cannot be a page body: a NUL byte (no database
// text holds one) or bytes that are not UTF-8.
func checkText(b []byte) error {
	if bytes.IndexByte(b, 0) >= 0 {
		return errors.New("holds a NUL byte: markdown must be text")
	}
	if !utf8.Valid(b) {
		return errors.New("is not UTF-8 text")
	}
	return nil
}

// entryName decodes the name of f. Zip names are CP437 unless the entry
// carries the UTF-8 flag (APPNOTE 4.4.4, appendix D), or an Info-ZIP
// Unicode Path field (0x7075) spells the name in UTF-8. A name without the
// flag that is valid multi-byte UTF-8 is kept as UTF-8: macOS and some other
// tools write UTF-8 without setting the flag, and CP437 text that happens
// to be valid UTF-8 (a box-drawing character followed by an accented
// letter) does not occur in file names.
func entryName(f *zip.File) string {
	if n, ok := unicodePath(f); ok {
		return n
	}
	if !f.NonUTF8 || utf8.ValidString(f.Name) {
		return f.Name
	}
	n, err := charmap.CodePage437.NewDecoder().String(f.Name)
	if err != nil {
		return strings.ToValidUTF8(f.Name, "\uFFFD")
	}
	return n
}

// unicodePath reads the Info-ZIP Unicode Path extra field: version 1, the
// CRC-32 of the header's own name (a stale field, left by a tool that
// renamed the entry, is ignored), then the name in UTF-8.
func unicodePath(f *zip.File) (string, bool) {
	extra := f.Extra
	for len(extra) >= 4 {
		id, size := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		extra = extra[4:]
		if size > len(extra) {
			return "", false
		}
		field := extra[:size]
		extra = extra[size:]
		if id != 0x7075 || len(field) < 5 || field[0] != 1 {
			continue
		}
		name := string(field[5:])
		if binary.LittleEndian.Uint32(field[1:]) == crc32.ChecksumIEEE([]byte(f.Name)) && utf8.ValidString(name) {
			return name, true
		}
	}
	return "", false
}

// commonRoot is a single top folder every entry shares ("docs/"), or "".
func commonRoot(names []string) string {
	root := ""
	for _, n := range names {
		first, _, ok := strings.Cut(strings.TrimPrefix(n, "/"), "/")
		if !ok {
			return ""
		}
		if root == "" {
			root = first
		} else if root != first {
			return ""
		}
	}
	if root == "" {
		return ""
	}
	return root + "/"
}

// unpacked counts the zip entries Zip has begun to unpack in this process;
// tests read it (Unpacked) to count the work a cancelled import did.
var unpacked atomic.Int64

// Unpacked is the number of zip entries unpacked so far.
func Unpacked() int64 { return unpacked.Load() }
