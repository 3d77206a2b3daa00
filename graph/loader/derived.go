package loader

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/pagecontent"
	"github.com/folio/folio/ent/pagederived"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/markdown"
)

// Derived is what the markdown engine reads out of a body: computed once
// per body and markdown.FormatVersion, stored (PageDerived) and shared.
type Derived struct {
	Document markdown.Document
	Text     string
	Links    []markdown.Link
	Anchors  []string
	Sections []markdown.Section
	// Specs is the openapi blocks of the body (not stored: read from
	// Document, which holds them), the index of which bodies embed which
	// OpenAPI spec.
	Specs []markdown.SpecRef
}

// DerivedID is the PageDerived row id of a body at the current format.
func DerivedID(hash string) string { return hash + ".v" + strconv.Itoa(markdown.FormatVersion) }

// Derive computes a body's derived data.
func Derive(md string) *Derived {
	d := &Derived{Document: markdown.ToDocument(md), Text: markdown.Text(md), Links: markdown.Links(md),
		Anchors: markdown.Anchors(md), Sections: markdown.Sections(md)}
	d.Specs = markdown.DocumentSpecRefs(d.Document)
	return d
}

// derivedChunk keeps bulk inserts under every database's parameter limit.
const derivedChunk = 400

// loadDerived reads the derived data of bodies by content hash in one
// statement, and computes and stores (insert, or nothing when another
// request stored it first) that of the bodies read for the first time.
func loadDerived(ctx context.Context, client *ent.Client, hashes []string) (map[string]*Derived, error) {
	ids := make([]string, len(hashes))
	for i, h := range hashes {
		ids[i] = DerivedID(h)
	}
	rows, err := client.PageDerived.Query().Where(pagederived.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Derived, len(hashes))
	for _, r := range rows {
		d := &Derived{Text: r.Text}
		if err := decodeAll(r, d); err != nil {
			return nil, err
		}
		d.Specs = markdown.DocumentSpecRefs(d.Document)
		out[r.ContentHash] = d
	}
	var missing []string
	for _, h := range hashes {
		if _, ok := out[h]; !ok && h != "" {
			missing = append(missing, h)
			out[h] = nil
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	bodies, err := client.PageContent.Query().Where(pagecontent.IDIn(missing...)).All(ctx)
	if err != nil {
		return nil, err
	}
	creates := make([]*ent.PageDerivedCreate, 0, len(bodies))
	for _, b := range bodies {
		if err := requestStopped(ctx); err != nil { // parsing a body can take milliseconds: stop with the request
			return nil, err
		}
		d := Derive(b.Markdown)
		out[b.ID] = d
		c, err := derivedCreate(client, b.ID, d)
		if err != nil {
			return nil, err
		}
		creates = append(creates, c)
	}
	// Filling the cache changes nothing anyone edits: no event, whether a
	// read or a write reads it first.
	ctx = events.Exempt(ctx, events.ExemptDerived)
	for start := 0; start < len(creates); start += derivedChunk {
		err := client.PageDerived.CreateBulk(creates[start:min(len(creates), start+derivedChunk)]...).
			OnConflict().DoNothing().Exec(ctx)
		if err != nil && !isNoRows(err) {
			return nil, err
		}
	}
	return out, nil
}

func derivedCreate(client *ent.Client, hash string, d *Derived) (*ent.PageDerivedCreate, error) {
	var enc [4][]byte
	for i, v := range []any{d.Document, d.Links, d.Anchors, d.Sections} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode derived data: %w", err)
		}
		enc[i] = b
	}
	return client.PageDerived.Create().SetID(DerivedID(hash)).SetContentHash(hash).SetVersion(markdown.FormatVersion).
		SetDocument(string(enc[0])).SetText(d.Text).SetLinks(string(enc[1])).SetAnchors(string(enc[2])).
		SetSections(string(enc[3])), nil
}

func decodeAll(r *ent.PageDerived, d *Derived) error {
	for _, f := range []struct {
		src string
		dst any
	}{{r.Document, &d.Document}, {r.Links, &d.Links}, {r.Anchors, &d.Anchors}, {r.Sections, &d.Sections}} {
		if err := json.Unmarshal([]byte(f.src), f.dst); err != nil {
			return fmt.Errorf("decode derived data %s: %w", r.ID, err)
		}
	}
	return nil
}

func newDerivedLoader(b batching, client *ent.Client) *Loader[*Derived] {
	return batched(b, func(ctx context.Context, hashes []string) []*dataloader.Result[*Derived] {
		byHash, err := loadDerived(ctx, client, hashes)
		results := make([]*dataloader.Result[*Derived], len(hashes))
		for i, h := range hashes {
			d := byHash[h]
			if d == nil {
				d = Derive("") // an empty body, or one that is not stored
			}
			results[i] = &dataloader.Result[*Derived]{Data: d, Error: err}
		}
		return results
	})
}

// isNoRows: a bulk insert that inserted nothing (every row was there) reports
// no rows on some databases.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
