package graph

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif"  // dimensions of GIF files
	_ "image/jpeg" // dimensions of JPEG files
	_ "image/png"  // dimensions of PNG files
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/markdown"
)

// Limits of a batch of content changes.
const (
	MaxChanges       = 50
	MaxFilesPerBatch = 20
	MaxInlineFile    = 1 << 20 // decoded bytes of a base64 file
)

// applyChanges applies a batch to the draft, in order. Any invalid change
// fails the whole batch with a 400 naming it (changes[i].field); nothing has
// been written then. File bytes are stored in blob storage as they are read:
// they are content-addressed, so bytes of a failed batch are harmless.
func (r *Resolver) applyChanges(ctx context.Context, d *draft, changes []*model.ContentChangeInput) error {
	if len(changes) == 0 || len(changes) > MaxChanges {
		return apperr.InvalidField("changes", "must hold 1 to %d changes", MaxChanges)
	}
	refs := map[string]string{} // batch-local refs -> page ids
	resolve := func(v string) string {
		if id, ok := refs[v]; ok {
			return id
		}
		return v
	}
	for i, c := range changes {
		field := func(name string) string { return fmt.Sprintf("changes[%d].%s", i, name) }
		if at := c.At.Value(); at != nil && *at < 0 {
			return apperr.InvalidField(field("at"), "must be 0 or more")
		}
		var err error
		switch c.Operation {
		case model.OperationInsertPage:
			err = d.insertPage(c, field, resolve, refs)
		case model.OperationUpdatePage:
			err = d.updatePage(c, field, resolve, func(hash string) (string, error) {
				if b, ok := d.bodies[hash]; ok {
					return b, nil
				}
				return r.ReaderMarkdown(ctx, hash)
			})
		case model.OperationDeletePage:
			err = d.deletePage(c, field, resolve)
		case model.OperationInsertFiles:
			err = r.insertFiles(ctx, d, c, field)
		default:
			err = apperr.InvalidField(field("operation"), "must be insert_page, update_page, delete_page or insert_files")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *draft) insertPage(c *model.ContentChangeInput, field func(string) string, resolve func(string) string, refs map[string]string) error {
	md := c.Markdown.Value()
	if md == nil {
		return apperr.InvalidField(field("markdown"), "is required: the new page's document")
	}
	if err := checkMarkdown(*md, field); err != nil {
		return err
	}
	meta := markdown.Parse(*md)
	p := &draftPage{ID: ids.New(), Kind: page.KindDocument, CreatedAt: clock.Now(), UpdatedAt: clock.Now()}
	p.Title = firstNonEmpty(meta.Title, deref(c.Title.Value()), "Untitled")
	p.Emoji = firstNonEmpty(meta.Emoji, deref(c.Emoji.Value()))
	p.Description = firstNonEmpty(meta.Description, deref(c.Description.Value()))
	p.Hidden = meta.Hidden || derefBool(c.Hidden.Value())
	parent := ""
	if v := c.Into.Value(); v != nil {
		parent = resolve(*v)
		if _, ok := d.pages[parent]; !ok {
			return apperr.InvalidField(field("into"), "%s is not a page of this content", *v)
		}
	}
	if err := d.setSlug(p, parent, c.Slug.Value(), field); err != nil {
		return err
	}
	if err := checkPage(p, field); err != nil {
		return err
	}
	noIndex, noRobotsIndex := settleRobots(*md, c, false, false)
	d.setBody(p, markdown.KeepRobots(meta.Body, noIndex, noRobotsIndex))
	d.pages[p.ID] = p
	d.place(p, parent, atOr(c.At.Value(), -1))
	if ref := c.Ref.Value(); ref != nil && *ref != "" {
		if _, dup := refs[*ref]; dup {
			return apperr.InvalidField(field("ref"), "%q is used twice in the batch", *ref)
		}
		refs[*ref] = p.ID
	}
	return nil
}

// updatePage applies an update_page change; body reads a stored body by
// its hash (the page's robots settings live in it).
func (d *draft) updatePage(c *model.ContentChangeInput, field func(string) string, resolve func(string) string, body func(string) (string, error)) error {
	p, err := d.pageOf(c, field, resolve)
	if err != nil {
		return err
	}
	var meta markdown.Meta
	md := c.Markdown.Value()
	if md != nil {
		if err := checkMarkdown(*md, field); err != nil {
			return err
		}
		meta = markdown.Parse(*md)
	}
	if md != nil || c.NoIndex.Value() != nil || c.NoRobotsIndex.Value() != nil {
		// The page keeps its robots settings unless the new markdown's
		// frontmatter or the change's fields say otherwise.
		old, err := body(p.Hash)
		if err != nil {
			return err
		}
		prevIndex, prevRobots := markdown.Robots(old)
		src := "" // no new markdown: no frontmatter to win over the fields
		if md != nil {
			src = *md
		} else {
			meta.Body = markdown.Parse(old).Body
		}
		noIndex, noRobotsIndex := settleRobots(src, c, derefBool(prevIndex), derefBool(prevRobots))
		if next := markdown.KeepRobots(meta.Body, noIndex, noRobotsIndex); md != nil || next != old {
			d.setBody(p, next)
		}
	}
	if t := firstNonEmpty(meta.Title, deref(c.Title.Value())); t != "" {
		p.Title = t
	}
	if v, ok := c.Emoji.ValueOK(); ok {
		p.Emoji = deref(v)
	}
	if meta.Emoji != "" {
		p.Emoji = meta.Emoji
	}
	if v, ok := c.Description.ValueOK(); ok {
		p.Description = deref(v)
	}
	if meta.Description != "" {
		p.Description = meta.Description
	}
	if v, ok := c.Hidden.ValueOK(); ok {
		p.Hidden = derefBool(v)
	}
	if meta.Hidden {
		p.Hidden = true
	}
	parent := p.Parent
	into, moving := c.Into.ValueOK()
	if moving {
		parent = ""
		if into != nil {
			parent = resolve(*into)
			if _, ok := d.pages[parent]; !ok {
				return apperr.InvalidField(field("into"), "%s is not a page of this content", *into)
			}
			for _, id := range d.descendants(p.ID) {
				if id == parent {
					return apperr.InvalidField(field("into"), "a page cannot move into itself or its own subpages")
				}
			}
		}
	}
	if v := c.Slug.Value(); v != nil || parent != p.Parent {
		if err := d.setSlug(p, parent, v, field); err != nil {
			return err
		}
	}
	if at := c.At.Value(); moving || at != nil {
		d.place(p, parent, atOr(at, -1))
	}
	if err := checkPage(p, field); err != nil {
		return err
	}
	p.touch()
	return nil
}

func (d *draft) deletePage(c *model.ContentChangeInput, field func(string) string, resolve func(string) string) error {
	p, err := d.pageOf(c, field, resolve)
	if err != nil {
		return err
	}
	for _, id := range d.descendants(p.ID) {
		delete(d.pages, id)
	}
	for i, s := range d.children(p.Parent) {
		s.Position = i
	}
	return nil
}

// pageOf finds the page a change names.
func (d *draft) pageOf(c *model.ContentChangeInput, field func(string) string, resolve func(string) string) (*draftPage, error) {
	id := c.Page.Value()
	if id == nil || *id == "" {
		return nil, apperr.InvalidField(field("page"), "is required")
	}
	p, ok := d.pages[resolve(*id)]
	if !ok {
		return nil, apperr.InvalidField(field("page"), "%s is not a page of this content", *id)
	}
	return p, nil
}

// setSlug gives p a slug unique among the children of parent: a slug the
// caller chose must be free (400 otherwise); one derived from the title is
// made unique with a suffix.
func (d *draft) setSlug(p *draftPage, parent string, chosen *string, field func(string) string) error {
	if chosen != nil {
		slug := markdown.Slug(*chosen)
		if slug != *chosen {
			return apperr.InvalidField(field("slug"), "must be lower-case letters, digits and '-' (like %q)", slug)
		}
		if d.uniqueSlug(p, parent, slug) != slug {
			return apperr.InvalidField(field("slug"), "%q is already used by a sibling page", slug)
		}
		p.Slug = slug
		return nil
	}
	base := p.Slug
	if base == "" || parent != p.Parent {
		base = markdown.Slug(p.Title)
	}
	p.Slug = d.uniqueSlug(p, parent, base)
	return nil
}

// settleRobots is a page's noIndex and noRobotsIndex after a change: what
// the markdown's frontmatter says wins (GitBook: frontmatter over fields),
// then the change's fields, then what the page had.
func settleRobots(md string, c *model.ContentChangeInput, noIndex, noRobotsIndex bool) (bool, bool) {
	fmIndex, fmRobots := markdown.Robots(md)
	pick := func(fm, field *bool, prev bool) bool {
		switch {
		case fm != nil:
			return *fm
		case field != nil:
			return *field
		}
		return prev
	}
	return pick(fmIndex, c.NoIndex.Value(), noIndex), pick(fmRobots, c.NoRobotsIndex.Value(), noRobotsIndex)
}

// checkMarkdown holds a change's markdown to the engine's bounds (size and
// nesting), before anything reads it.
func checkMarkdown(md string, field func(string) string) error {
	if err := markdown.Check(md); err != nil {
		return apperr.InvalidField(field("markdown"), "%s", err.Error())
	}
	return nil
}

// checkPage holds a page to the bounds of the page table, naming the change.
func checkPage(p *draftPage, field func(string) string) error {
	for _, c := range []struct {
		name  string
		value string
		max   int
	}{{"title", p.Title, 256}, {"emoji", p.Emoji, 50}, {"description", p.Description, 1000}} {
		if utf8.RuneCountInString(c.value) > c.max {
			return apperr.InvalidField(field(c.name), "must be at most %d characters", c.max)
		}
	}
	return nil
}

func (r *Resolver) insertFiles(ctx context.Context, d *draft, c *model.ContentChangeInput, field func(string) string) error {
	files := c.Files.Value()
	if len(files) == 0 || len(files) > MaxFilesPerBatch {
		return apperr.InvalidField(field("files"), "must hold 1 to %d files", MaxFilesPerBatch)
	}
	for j, f := range files {
		ff := func(name string) string { return field(fmt.Sprintf("files[%d].%s", j, name)) }
		if n := utf8.RuneCountInString(f.Name); n < 1 || n > 256 {
			return apperr.InvalidField(ff("name"), "must be 1 to 256 characters")
		}
		b64, url := f.Base64.Value(), f.URL.Value()
		if (b64 == nil) == (url == nil) {
			return apperr.InvalidField(ff("base64"), "give exactly one of base64 and url")
		}
		var data []byte
		contentType := deref(f.ContentType.Value())
		if b64 != nil {
			if contentType == "" {
				return apperr.InvalidField(ff("contentType"), "is required with base64")
			}
			if base64.StdEncoding.DecodedLen(len(*b64)) > MaxInlineFile+3 {
				return apperr.InvalidField(ff("base64"), "must decode to at most 1 MB")
			}
			var err error
			if data, err = base64.StdEncoding.DecodeString(*b64); err != nil {
				return apperr.InvalidField(ff("base64"), "is not valid base64")
			}
			if len(data) > MaxInlineFile {
				return apperr.InvalidField(ff("base64"), "must decode to at most 1 MB")
			}
		} else {
			res, err := r.Fetcher.Get(ctx, *url)
			if err != nil {
				return apperr.InvalidField(ff("url"), "%s", err.Error())
			}
			data = res.Body
			if contentType == "" {
				contentType = res.ContentType
			}
		}
		if contentType == "" {
			contentType = mime.TypeByExtension(path.Ext(f.Name))
		}
		if contentType == "" {
			contentType = http.DetectContentType(data)
		}
		key, err := r.Blobs.Put(ctx, data, contentType)
		if err != nil {
			return err
		}
		file := &draftFile{ID: ids.New(), Name: f.Name, ContentType: contentType, BlobKey: key, Size: int64(len(data)), CreatedAt: clock.Now()}
		if strings.HasPrefix(contentType, "image/") {
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
				file.Width, file.Height = &cfg.Width, &cfg.Height
			}
		}
		d.files = append(d.files, file)
	}
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefBool(b *bool) bool { return b != nil && *b }

func atOr(at *int, def int) int {
	if at == nil || *at < 0 {
		return def
	}
	return *at
}
