package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/internal/access"
)

// AddUsers creates n users (display name "<name> NNN", email
// "<name>NNN@example.test", lower-cased) as members of orgID with role (nil:
// guest), in two statements, without tokens.
func (s *Server) AddUsers(t testing.TB, orgID, name string, n int, role *access.Role) []User {
	t.Helper()
	ctx := Fixture(context.Background())
	creates := make([]*ent.UserCreate, n)
	for i := range creates {
		creates[i] = s.Client().User.Create().
			SetDisplayName(fmt.Sprintf("%s %03d", name, i)).
			SetEmail(fmt.Sprintf("%s%03d@example.test", strings.ToLower(name), i))
	}
	users, err := s.Client().User.CreateBulk(creates...).Save(ctx)
	if err != nil {
		t.Fatalf("add users: %v", err)
	}
	members := make([]*ent.MemberCreate, n)
	out := make([]User, n)
	for i, u := range users {
		members[i] = s.Client().Member.Create().SetOrganizationID(orgID).SetUserID(u.ID).SetNillableRole(role)
		out[i] = User{ID: u.ID, Email: u.Email}
	}
	if err := s.Client().Member.CreateBulk(members...).Exec(ctx); err != nil {
		t.Fatalf("add members: %v", err)
	}
	return out
}

// MemberOf is userID's membership of orgID, or nil.
func (s *Server) MemberOf(t testing.TB, orgID, userID string) *ent.Member {
	t.Helper()
	m, err := s.Client().Member.Query().Where(member.OrganizationID(orgID), member.UserID(userID)).Only(context.Background())
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TeamRoles is the membership of a team as stored: user id -> role.
func (s *Server) TeamRoles(t testing.TB, teamID string) map[string]string {
	t.Helper()
	rows, err := s.Client().TeamMember.Query().Where(teammember.TeamID(teamID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.UserID] = string(r.Role)
	}
	return out
}
