package rest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// Sections, section groups and site spaces of a site (area `sites`).

// movePointer is one side of a move's position: `type` and the id under
// the key the seed gives each kind (siteSection, siteSpace, or id).
type movePointer struct {
	Type        *string `json:"type"`
	ID          *string `json:"id"`
	SiteSection *string `json:"siteSection"`
	SiteSpace   *string `json:"siteSpace"`
}

type moveBody struct {
	Position *struct {
		Before *movePointer `json:"before"`
		After  *movePointer `json:"after"`
	} `json:"position"`
}

// decodeSiteMove reads a move body: types lists the pointer types allowed,
// key the field holding the id ("siteSection", "siteSpace" or "id").
func decodeSiteMove(r *http.Request, key string, types ...string) (*model.SiteMoveInput, error) {
	var in moveBody
	if err := decodeOptionalJSON(r, &in); err != nil {
		return nil, err
	}
	if in.Position == nil {
		return nil, nil
	}
	out := &model.SiteMoveInput{}
	for _, side := range []struct {
		name string
		p    *movePointer
		set  *graphql.Omittable[*string]
	}{{"before", in.Position.Before, &out.Before}, {"after", in.Position.After, &out.After}} {
		if side.p == nil {
			continue
		}
		field := "position." + side.name
		ok := false
		for _, t := range types {
			ok = ok || (side.p.Type != nil && *side.p.Type == t)
		}
		if !ok {
			return nil, apperr.InvalidField(field+".type", "must be %s", types[0])
		}
		var id *string
		switch key {
		case "siteSection":
			id = side.p.SiteSection
		case "siteSpace":
			id = side.p.SiteSpace
		default:
			id = side.p.ID
		}
		if id == nil || *id == "" {
			return nil, apperr.InvalidField(field+"."+key, "is required")
		}
		*side.set = graphql.OmittableOf(id)
	}
	return out, nil
}

func (a *API) listSiteSections(w http.ResponseWriter, r *http.Request) error {
	args, err := structureListArgs(r)
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	key := queryString(r, "shareKey")
	page, err := a.res.SiteSections(r.Context(), org, id, args, key)
	return writeList(w, r, page, err, nil, a.presentSection)
}

type addSectionBody struct {
	SpaceID *string `json:"spaceId"`
	Title   *string `json:"title"`
	Icon    *string `json:"icon"`
}

func (a *API) addSiteSection(w http.ResponseWriter, r *http.Request) error {
	var in addSectionBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.SpaceID == nil {
		return apperr.InvalidField("spaceId", "is required")
	}
	org, id := orgSite(r)
	sec, err := a.res.AddSiteSection(r.Context(), org, id, *in.SpaceID, in.Title, in.Icon)
	return writeOne(w, r, http.StatusCreated, sec, err, a.presentSection, nil)
}

func (a *API) updateSiteSection(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateSiteSectionInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	org, id := orgSite(r)
	sec, err := a.res.UpdateSiteSection(r.Context(), org, id, chi.URLParam(r, "siteSectionId"), in)
	return writeOne(w, r, http.StatusOK, sec, err, a.presentSection, nil)
}

func (a *API) deleteSiteSection(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if err := a.res.DeleteSiteSection(r.Context(), org, id, chi.URLParam(r, "siteSectionId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) moveSiteSection(w http.ResponseWriter, r *http.Request) error {
	pos, err := decodeSiteMove(r, "siteSection", "site-section")
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	sec, err := a.res.MoveSiteSection(r.Context(), org, id, chi.URLParam(r, "siteSectionId"), pos)
	return writeOne(w, r, http.StatusOK, sec, err, a.presentSection, nil)
}

// sectionJSON is GitBook's SiteSection object.
type sectionJSON struct {
	Object       string   `json:"object"`
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  *string  `json:"description,omitempty"`
	Default      bool     `json:"default"`
	Path         string   `json:"path"`
	Condition    *string  `json:"condition,omitempty"`
	SectionGroup *string  `json:"sectionGroup,omitempty"`
	Icon         *string  `json:"icon,omitempty"`
	SiteSpaces   []any    `json:"siteSpaces"`
	URLs         siteURLs `json:"urls"`
	// Draft: GitBook 0.202.0's draft structure, which Folio has not.
	Draft bool `json:"draft"`
}

func (a *API) presentSection(ctx context.Context, sec *ent.SiteSection) (any, error) {
	spaces, err := a.res.SectionSiteSpaces(ctx, sec)
	if err != nil {
		return nil, err
	}
	out := sectionJSON{Object: "site-section", ID: sec.ID, Title: sec.Title, Description: sec.Description,
		Default: sec.IsDefault, Path: sec.Path, Condition: a.res.SectionCondition(ctx, sec), SectionGroup: sec.GroupID, Icon: sec.Icon,
		SiteSpaces: make([]any, len(spaces))}
	if out.URLs.Published, err = a.res.SectionPublishedURL(ctx, sec); err != nil {
		return nil, err
	}
	for i, ss := range spaces {
		if out.SiteSpaces[i], err = a.presentSiteSpace(ctx, ss); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (a *API) listSiteSectionGroups(w http.ResponseWriter, r *http.Request) error {
	args, err := structureListArgs(r)
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	page, err := a.res.SiteSectionGroups(r.Context(), org, id, args)
	return writeList(w, r, page, err, nil, a.presentGroup)
}

// addGroupBody is addSectionGroupToSite's body; icon may be null.
type addGroupBody struct {
	Title    *string  `json:"title"`
	Icon     *string  `json:"icon"`
	Sections []string `json:"sections"`
}

func (a *API) addSiteSectionGroup(w http.ResponseWriter, r *http.Request) error {
	var in addGroupBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Title == nil {
		return apperr.InvalidField("title", "is required")
	}
	org, id := orgSite(r)
	g, err := a.res.AddSiteSectionGroup(r.Context(), org, id, *in.Title, in.Icon, in.Sections)
	return writeOne(w, r, http.StatusCreated, g, err, a.presentGroup, nil)
}

func (a *API) updateSiteSectionGroup(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateSiteSectionGroupInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	org, id := orgSite(r)
	g, err := a.res.UpdateSiteSectionGroup(r.Context(), org, id, chi.URLParam(r, "siteSectionGroupId"), in)
	return writeOne(w, r, http.StatusOK, g, err, a.presentGroup, nil)
}

func (a *API) deleteSiteSectionGroup(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if err := a.res.DeleteSiteSectionGroup(r.Context(), org, id, chi.URLParam(r, "siteSectionGroupId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) addSectionToGroup(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		SectionID *string `json:"sectionId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.SectionID == nil || *in.SectionID == "" {
		return apperr.InvalidField("sectionId", "is required")
	}
	org, id := orgSite(r)
	g, err := a.res.AddSectionToGroup(r.Context(), org, id, chi.URLParam(r, "siteSectionGroupId"), *in.SectionID)
	return writeOne(w, r, http.StatusCreated, g, err, a.presentGroup, nil)
}

func (a *API) removeSectionFromGroup(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if err := a.res.RemoveSectionFromGroup(r.Context(), org, id, chi.URLParam(r, "siteSectionGroupId"),
		chi.URLParam(r, "siteSectionId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) moveSiteSectionGroup(w http.ResponseWriter, r *http.Request) error {
	pos, err := decodeSiteMove(r, "id", "site-section", "site-section-group")
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	g, err := a.res.MoveSiteSectionGroup(r.Context(), org, id, chi.URLParam(r, "siteSectionGroupId"), pos)
	return writeOne(w, r, http.StatusOK, g, err, a.presentGroup, nil)
}

// groupJSON is GitBook's SiteSectionGroup object.
type groupJSON struct {
	Object   string  `json:"object"`
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Icon     *string `json:"icon,omitempty"`
	Sections []any   `json:"sections"`
	Children []any   `json:"children"`
	Draft    bool    `json:"draft"` // always false (see sectionJSON)
}

func (a *API) presentGroup(ctx context.Context, g *ent.SiteSectionGroup) (any, error) {
	secs, err := a.res.GroupSections(ctx, g)
	if err != nil {
		return nil, err
	}
	out := groupJSON{Object: "site-section-group", ID: g.ID, Title: g.Title, Icon: g.Icon, Sections: make([]any, len(secs))}
	for i, s := range secs {
		if out.Sections[i], err = a.presentSection(ctx, s); err != nil {
			return nil, err
		}
	}
	out.Children = out.Sections
	return out, nil
}

func (a *API) listSiteSpaces(w http.ResponseWriter, r *http.Request) error {
	args, err := structureListArgs(r)
	if err != nil {
		return err
	}
	def, err := queryBool(r, "default")
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	key := queryString(r, "shareKey")
	page, err := a.res.SiteSpaces(r.Context(), org, id, args, def, key)
	return writeList(w, r, page, err, nil, a.presentSiteSpace)
}

func (a *API) addSiteSpace(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		SpaceID   *string `json:"spaceId"`
		SectionID *string `json:"sectionId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.SpaceID == nil {
		return apperr.InvalidField("spaceId", "is required")
	}
	org, id := orgSite(r)
	ss, err := a.res.AddSiteSpace(r.Context(), org, id, *in.SpaceID, in.SectionID)
	return writeOne(w, r, http.StatusCreated, ss, err, a.presentSiteSpace, nil)
}

func (a *API) updateSiteSpace(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateSiteSpaceInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	org, id := orgSite(r)
	ss, err := a.res.UpdateSiteSpace(r.Context(), org, id, chi.URLParam(r, "siteSpaceId"), in)
	return writeOne(w, r, http.StatusOK, ss, err, a.presentSiteSpace, nil)
}

func (a *API) deleteSiteSpace(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if err := a.res.DeleteSiteSpace(r.Context(), org, id, chi.URLParam(r, "siteSpaceId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) moveSiteSpace(w http.ResponseWriter, r *http.Request) error {
	pos, err := decodeSiteMove(r, "siteSpace", "site-space")
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	ss, err := a.res.MoveSiteSpace(r.Context(), org, id, chi.URLParam(r, "siteSpaceId"), pos)
	return writeOne(w, r, http.StatusOK, ss, err, a.presentSiteSpace, nil)
}

// siteSpaceJSON is GitBook's SiteSpace object; space is null when the
// caller may not read it.
type siteSpaceJSON struct {
	Object    string          `json:"object"`
	ID        string          `json:"id"`
	Path      string          `json:"path"`
	Section   *string         `json:"section,omitempty"`
	Space     json.RawMessage `json:"space"`
	Title     string          `json:"title"`
	Default   bool            `json:"default"`
	Condition *string         `json:"condition,omitempty"`
	URLs      siteURLs        `json:"urls"`
	Draft     bool            `json:"draft"` // always false (see sectionJSON)
}

func (a *API) presentSiteSpace(ctx context.Context, ss *ent.SiteSpace) (any, error) {
	sp, err := a.res.SiteSpaceSpace(ctx, ss)
	if err != nil {
		return nil, err
	}
	out := siteSpaceJSON{Object: "site-space", ID: ss.ID, Path: ss.Path, Section: ss.SectionID, Default: ss.IsDefault,
		Condition: a.res.SiteSpaceCondition(ctx, ss), Space: json.RawMessage("null")}
	if out.URLs.Published, err = a.res.SiteSpacePublishedURL(ctx, ss); err != nil {
		return nil, err
	}
	if sp != nil {
		v, err := a.presentSpace(ctx, sp)
		if err != nil {
			return nil, err
		}
		if out.Space, err = json.Marshal(v); err != nil {
			return nil, err
		}
		out.Title = sp.Title
	}
	return out, nil
}

// structureListArgs are listArgs for lists in the site's own order, which
// reads first to last unless `order=desc` is asked for.
func structureListArgs(r *http.Request) (paging.Args, error) {
	args, err := listArgs(r)
	if err == nil && queryString(r, "order") == nil {
		args.Order = paging.Asc
	}
	return args, err
}
