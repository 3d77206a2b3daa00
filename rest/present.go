package rest

import (
	"context"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/access"
)

// timestamp writes times as RFC 3339 in UTC with milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// optionalString presents an optional closed-set value (an ent enum) as
// its string, or null.
func optionalString[T ~string](v *T) *string {
	if v == nil {
		return nil
	}
	s := string(*v)
	return &s
}

type urlsLocation struct {
	Location string `json:"location"`
}

// userJSON is GitBook's embedded user object.
type userJSON struct {
	Object      string       `json:"object"`
	ID          string       `json:"id"`
	DisplayName string       `json:"displayName"`
	Email       string       `json:"email,omitempty"`
	PhotoURL    *string      `json:"photoURL,omitempty"`
	URLs        urlsLocation `json:"urls"`
}

func (a *API) presentUser(u *ent.User) userJSON {
	return userJSON{
		Object:      "user",
		ID:          u.ID,
		DisplayName: u.DisplayName,
		Email:       u.Email,
		PhotoURL:    u.PhotoURL,
		URLs:        urlsLocation{Location: a.res.BaseURL + "/v1/users/" + u.ID},
	}
}

// teamJSON is GitBook's OrganizationTeam object.
type teamJSON struct {
	Object      string                  `json:"object"`
	ID          string                  `json:"id"`
	Title       string                  `json:"title"`
	Members     int                     `json:"members"`
	Spaces      int                     `json:"spaces"`
	CreatedAt   string                  `json:"createdAt"`
	Permissions *access.TeamPermissions `json:"permissions"`
}

// presentTeam presents a team with its counts and the caller's permissions.
func (a *API) presentTeam(ctx context.Context, t *ent.Team) (teamJSON, error) {
	members, err := a.res.TeamMemberCount(ctx, t)
	if err != nil {
		return teamJSON{}, err
	}
	spaces, err := a.res.TeamSpaceCount(ctx, t)
	if err != nil {
		return teamJSON{}, err
	}
	perms, err := a.res.TeamPermissions(ctx, t)
	if err != nil {
		return teamJSON{}, err
	}
	return teamJSON{Object: "team", ID: t.ID, Title: t.Title, Members: members, Spaces: spaces,
		CreatedAt: timestamp(t.CreatedAt), Permissions: perms}, nil
}

// memberJSON is GitBook's OrganizationMember object. Its id is the user's
// id; role is null (not absent) for a guest, as the reference requires it.
type memberJSON struct {
	Object     string       `json:"object"`
	ID         string       `json:"id"`
	Role       *access.Role `json:"role"`
	User       userJSON     `json:"user"`
	Disabled   bool         `json:"disabled"`
	JoinedAt   string       `json:"joinedAt"`
	LastSeenAt string       `json:"lastSeenAt,omitempty"`
	SSO        bool         `json:"sso"`
	Spaces     int          `json:"spaces"`
	Teams      int          `json:"teams"`
}

// presentMember presents a member with their user and counts, each through
// a loader so that a page of members batches.
func (a *API) presentMember(ctx context.Context, m *ent.Member) (memberJSON, error) {
	u, err := a.res.MemberUser(ctx, m)
	if err != nil {
		return memberJSON{}, err
	}
	spaces, err := a.res.MemberSpaceCount(ctx, m)
	if err != nil {
		return memberJSON{}, err
	}
	teams, err := a.res.MemberTeamCount(ctx, m)
	if err != nil {
		return memberJSON{}, err
	}
	out := memberJSON{Object: "member", ID: m.UserID, Role: m.Role, User: a.presentUser(u),
		Disabled: m.Disabled, JoinedAt: timestamp(m.JoinedAt), SSO: m.SSO, Spaces: spaces, Teams: teams}
	if m.LastSeenAt != nil {
		out.LastSeenAt = timestamp(*m.LastSeenAt)
	}
	return out, nil
}
