package graph

import (
	"context"
	"strings"

	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/schema"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// membership is the caller's standing in an organization.
func membership(ctx context.Context, orgID string) (access.Membership, *ent.Member, error) {
	m, err := loader.For(ctx).ViewerMembership.Load(ctx, orgID)()
	if err != nil || m == nil {
		return access.Membership{}, nil, err
	}
	return access.Membership{Member: true, Role: m.Role}, m, nil
}

// ViewerOrganizations pages through the caller's organizations, newest
// first unless asked otherwise.
func (r *Resolver) ViewerOrganizations(ctx context.Context, args paging.Args) (paging.Page[*ent.Organization], error) {
	q := r.Client.Organization.Query().
		Where(organization.HasMembersWith(member.UserID(auth.ViewerID(ctx))))
	// The viewer's memberships come with the page (one more statement) so
	// that every item's permissions resolve from the loader's cache.
	q.WithMembers(func(mq *ent.MemberQuery) { mq.Where(member.UserID(auth.ViewerID(ctx))) })
	page, err := listPage(ctx, q, args, organization.FieldCreatedAt, func(o *ent.Organization) paging.Cursor {
		return paging.Cursor{Time: o.CreatedAt, ID: o.ID}
	})
	if err != nil {
		return page, err
	}
	primeOrganizations(ctx, page.Items)
	memberships := loader.For(ctx).ViewerMembership
	for _, o := range page.Items {
		if len(o.Edges.Members) == 1 {
			memberships.Prime(ctx, o.ID, o.Edges.Members[0])
		}
	}
	return page, nil
}

// OrganizationsForEmailDomain lists the organizations that claim an email
// domain. Only a user whose own email is in that domain may ask, so the
// list cannot be used to map other companies' organizations.
func (r *Resolver) OrganizationsForEmailDomain(ctx context.Context, domain string) ([]*ent.Organization, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	domain = strings.ToLower(strings.TrimSpace(domain))
	_, own, _ := strings.Cut(u.Email, "@")
	if domain == "" || own != domain {
		return []*ent.Organization{}, nil
	}
	rows, err := r.Client.Organization.Query().
		Where(predicate.Organization(func(s *sql.Selector) {
			s.Where(sqljson.ValueContains(organization.FieldEmailDomains, domain))
		})).
		Order(ent.Desc(organization.FieldCreatedAt), ent.Desc(organization.FieldID)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	primeOrganizations(ctx, rows)
	return rows, nil
}

func primeOrganizations(ctx context.Context, rows []*ent.Organization) {
	l := loader.For(ctx)
	ids := make([]string, len(rows))
	for i, o := range rows {
		l.OrganizationByID.Prime(ctx, o.ID, o)
		ids[i] = o.ID
	}
	// What is read under each organization (its spaces, members, teams…)
	// is read for all of them at once.
	l.ShowParents(loader.Organizations, ids)
}

// ReadOrganization reads an organization the caller can see.
func (r *Resolver) ReadOrganization(ctx context.Context, id string) (*ent.Organization, error) {
	org, _, err := visibleOrganization(ctx, id)
	return org, err
}

// OrganizationPermissions are the caller's permissions on o.
func (r *Resolver) OrganizationPermissions(ctx context.Context, o *ent.Organization) (*access.OrganizationPermissions, error) {
	m, _, err := membership(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	p := access.OrganizationPermissionsFor(m, false)
	return &p, nil
}

// CreateOwnOrganization creates an organization with the caller as its
// admin (createOrganization in both APIs).
func (r *Resolver) CreateOwnOrganization(ctx context.Context, input model.CreateOrganizationInput) (*ent.Organization, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	return r.CreateOrganization(ctx, u.ID, input)
}

// CreateOrganization creates an organization with ownerID as its admin, in
// one transaction. The createOrganization mutation, `folio token create
// --org` and the first start all come here.
func (r *Resolver) CreateOrganization(ctx context.Context, ownerID string, input model.CreateOrganizationInput) (*ent.Organization, error) {
	var org *ent.Organization
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		create := tx.Organization.Create().SetTitle(input.Title)
		if v := input.EmailDomains.Value(); v != nil {
			create.SetEmailDomains(normalizeDomains(v))
		}
		if v := input.Type.Value(); v != nil {
			create.SetType(organization.Type(*v))
		}
		if v := input.UseCase.Value(); v != nil {
			create.SetUseCase(organization.UseCase(*v))
		}
		var err error
		if org, err = create.Save(ctx); err != nil {
			return entError(err)
		}
		if err := tx.Member.Create().SetOrganizationID(org.ID).SetUserID(ownerID).SetRole(access.Admin).Exec(ctx); err != nil {
			return err
		}
		record(ctx, organizationEvent(events.OrganizationCreated, org, map[string]any{"title": org.Title}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ownerID == auth.ViewerID(ctx) {
		loader.For(ctx).ForgetViewerMembership(ctx, org.ID)
	}
	return org, nil
}

// UpdateOrganization applies the fields the caller sent: absent fields stay,
// null clears what may be cleared. Admins only.
func (r *Resolver) UpdateOrganization(ctx context.Context, id string, input model.UpdateOrganizationInput) (*ent.Organization, error) {
	if _, err := adminOrganization(ctx, id); err != nil {
		return nil, err
	}
	// The changes are collected before the write and applied to its tx.
	var sets []func(*ent.OrganizationUpdateOne)
	var fields []string
	set := func(field string, f func(*ent.OrganizationUpdateOne)) {
		sets = append(sets, f)
		fields = append(fields, field)
	}
	if v, ok := input.Title.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("title", "cannot be null")
		}
		set("title", func(u *ent.OrganizationUpdateOne) { u.SetTitle(*v) })
	}
	if v, ok := input.EmailDomains.ValueOK(); ok {
		domains := normalizeDomains(v)
		set("emailDomains", func(u *ent.OrganizationUpdateOne) { u.SetEmailDomains(domains) })
	}
	if v, ok := input.Hostname.ValueOK(); ok {
		if v == nil {
			set("hostname", func(u *ent.OrganizationUpdateOne) { u.ClearHostname() })
		} else {
			set("hostname", func(u *ent.OrganizationUpdateOne) { u.SetHostname(*v) })
		}
	}
	if v, ok := input.DefaultRole.ValueOK(); ok {
		if v == nil {
			set("defaultRole", func(u *ent.OrganizationUpdateOne) { u.ClearDefaultRole() })
		} else if !v.Valid() {
			return nil, apperr.InvalidField("defaultRole", "%q is not a role", string(*v))
		} else {
			set("defaultRole", func(u *ent.OrganizationUpdateOne) { u.SetDefaultRole(*v) })
		}
	}
	if v, ok := input.DefaultContent.ValueOK(); ok {
		if v == nil {
			set("defaultContent", func(u *ent.OrganizationUpdateOne) { u.ClearDefaultContent() })
		} else {
			if v.Type != model.DefaultContentSite {
				return nil, apperr.InvalidField("defaultContent.type", "must be \"site\"")
			}
			if strings.TrimSpace(v.Site) == "" {
				return nil, apperr.InvalidField("defaultContent.site", "must be a site id")
			}
			dc := &schema.DefaultContent{Type: v.Type, Site: v.Site}
			set("defaultContent", func(u *ent.OrganizationUpdateOne) { u.SetDefaultContent(dc) })
		}
	}
	if v, ok := input.Logo.ValueOK(); ok {
		if v == nil {
			set("logo", func(u *ent.OrganizationUpdateOne) { u.ClearLogo() })
		} else {
			set("logo", func(u *ent.OrganizationUpdateOne) { u.SetLogo(*v) })
		}
	}
	for _, f := range []struct {
		name string
		in   interface{ ValueOK() (*bool, bool) }
		set  func(*ent.OrganizationUpdateOne, bool)
	}{
		{"sso", input.Sso, func(u *ent.OrganizationUpdateOne, v bool) { u.SetSSO(v) }},
		{"ai", input.Ai, func(u *ent.OrganizationUpdateOne, v bool) { u.SetAi(v) }},
		{"inviteLinks", input.InviteLinks, func(u *ent.OrganizationUpdateOne, v bool) { u.SetInviteLinks(v) }},
	} {
		if v, ok := f.in.ValueOK(); ok {
			if v == nil {
				return nil, apperr.InvalidField(f.name, "cannot be null")
			}
			b, fset := *v, f.set
			set(f.name, func(u *ent.OrganizationUpdateOne) { fset(u, b) })
		}
	}
	if v, ok := input.MergeRules.ValueOK(); ok {
		if err := r.checkMergeRules(ctx, id, v, false); err != nil {
			return nil, err
		}
		set("mergeRules", func(u *ent.OrganizationUpdateOne) { u.SetMergeRules(v) })
	}
	var org *ent.Organization
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.Organization.UpdateOneID(id)
		for _, f := range sets {
			f(upd)
		}
		var err error
		org, err = upd.Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.ConflictField("hostname", "is already used by another organization")
		}
		if err != nil {
			return entError(err)
		}
		record(ctx, organizationEvent(events.OrganizationUpdated, org, map[string]any{"fields": fields}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	l := loader.For(ctx).OrganizationByID
	l.Clear(ctx, id).Prime(ctx, id, org)
	return org, nil
}

// PingOrganization records that the caller was seen in the organization.
func (r *Resolver) PingOrganization(ctx context.Context, id string) error {
	_, m, err := membership(ctx, id)
	if err != nil {
		return err
	}
	if m == nil {
		return apperr.NotFoundf("organization %s not found", id)
	}
	// A last-seen time is telemetry: it records no event.
	return r.Client.Member.UpdateOne(m).SetLastSeenAt(clock.Now()).Exec(events.Exempt(ctx, events.ExemptLastSeen))
}

// organizationEvent is an event whose target is org.
func organizationEvent(action string, org *ent.Organization, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: org.ID,
		Target:  events.Target{Type: "organization", ID: org.ID, Label: org.Title},
		Payload: payload,
	}
}

// OrganizationURLs are the `urls` of an organization.
func (r *Resolver) OrganizationURLs(o *ent.Organization) *model.OrganizationURLs {
	return &model.OrganizationURLs{
		Location: r.BaseURL + "/v1/orgs/" + o.ID,
		App:      r.BaseURL + "/v1/orgs/" + o.ID, // no app of its own: the API location
		Logo:     o.Logo,
	}
}

// normalizeDomains lower-cases email domains and drops blanks and repeats.
func normalizeDomains(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" || seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}
