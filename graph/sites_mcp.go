package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/published"
)

// A published site's MCP server (internal/reader/mcp.go, issue 29) is read
// by programs, not browsers: they carry no cookie, and the people behind
// them prove who they are with an API token or an OAuth access token
// (which is one) in Authorization: Bearer. These are its only ways in;
// what it reads afterwards is the reader's (sites_reader.go): the same
// structure, navigation, search and markdown.

// MCPViewerContext is ctx for the user whose API token (or OAuth access
// token) token is, with that user's loaders; an unknown, expired or revoked
// token is apperr.Unauthenticated. The token's last use is recorded as for
// every API call (telemetry, at most once a minute, no event).
func (r *Resolver) MCPViewerContext(ctx context.Context, token string) (context.Context, error) {
	return r.viewerContext(ctx, token)
}

// MCPSite is the site an MCP request reads: the one named name at
// /s/<name>/ (its basename, or its id when it has none) or, with name "",
// the one whose id is id (a mapped host). A caller that can see the site
// through the API (ctx from MCPViewerContext: a member of its organization,
// or someone it is shared with) reads it published or not, as a member's
// preview does (member true); anyone else reads it only when published.
// Otherwise it is not found.
func (r *Resolver) MCPSite(ctx context.Context, name, id string) (s *published.Site, member bool, err error) {
	q := r.Client.Site.Query()
	if name != "" {
		q = q.Where(site.Or(site.Basename(name), site.And(site.ID(name), site.BasenameIsNil())))
	} else {
		q = q.Where(site.ID(id))
	}
	row, err := q.First(ctx)
	if ent.IsNotFound(err) {
		return nil, false, apperr.NotFoundf("site not found")
	}
	if err != nil {
		return nil, false, err
	}
	if auth.ViewerID(ctx) != "" {
		_, _, err := visibleSite(ctx, "", row.ID)
		if err == nil {
			if s, err = r.publishedStructure(ctx, row); err != nil {
				return nil, false, err
			}
			s.Preview = true
			return s, true, nil
		}
		if _, refused := apperr.As(err); !refused {
			return nil, false, err
		}
		// Not theirs: they read it as anyone would.
	}
	s, err = r.readerSite(ctx, row, nil)
	return s, false, err
}
