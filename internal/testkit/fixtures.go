package testkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/migrate"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/clock"
)

// User is a test user and its API token.
type User struct {
	ID    string
	Email string
	Token string
}

// NewUser creates a user (and, when orgTitle is set, an organization it
// administers) the way `folio token create` does.
func (s *Server) NewUser(t testing.TB, email, orgTitle string) (User, string) {
	t.Helper()
	ctx := Fixture(context.Background())
	token, orgID, err := s.App.IssueToken(ctx, email, "", orgTitle)
	if err != nil {
		t.Fatalf("issue token for %s: %v", email, err)
	}
	u, err := s.App.Resolver.EnsureUser(ctx, email, "")
	if err != nil {
		t.Fatal(err)
	}
	// The token counts as just used: a test's first request then makes
	// the statements of every other (no last_used_at touch), as a token
	// in steady use does.
	if err := s.Client().APIToken.Update().Where(apitoken.UserID(u.ID)).SetLastUsedAt(clock.Now()).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	return User{ID: u.ID, Email: u.Email, Token: token}, orgID
}

// AddMember makes u a member of orgID with role (nil: guest).
func (s *Server) AddMember(t testing.TB, orgID string, u User, role *access.Role) {
	t.Helper()
	create := s.Client().Member.Create().SetOrganizationID(orgID).SetUserID(u.ID)
	if role != nil {
		create.SetRole(*role)
	}
	if err := create.Exec(Fixture(context.Background())); err != nil {
		t.Fatalf("add member: %v", err)
	}
}

// RoleOf is a pointer to a role, for AddMember.
func RoleOf(r access.Role) *access.Role { return &r }

// Snapshot renders every row of every table, to prove that a failing
// request changed nothing.
func (s *Server) Snapshot(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	for _, table := range migrate.Tables {
		rows, err := s.App.DB.SQL.Query("SELECT * FROM " + table.Name + " ORDER BY id")
		if err != nil {
			t.Fatalf("snapshot %s: %v", table.Name, err)
		}
		fmt.Fprintf(&b, "== %s\n", table.Name)
		dumpRows(t, &b, rows)
	}
	return b.String()
}

func dumpRows(t testing.TB, b *strings.Builder, rows *sql.Rows) {
	t.Helper()
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if raw, ok := v.([]byte); ok {
				vals[i] = string(raw)
			}
		}
		line, _ := json.Marshal(vals)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// Unchanged fails when the database differs from before.
func (s *Server) Unchanged(t testing.TB, before string) {
	t.Helper()
	if after := s.Snapshot(t); after != before {
		t.Fatalf("a failing request changed the database:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
