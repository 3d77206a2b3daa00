package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// The access matrix: what the sharing rule (access.Effective, SiteRole)
// lets each kind of caller do with a space, a collection and a site, as
// the server answers it over REST.
//
// Callers: one member per organization role (admin … read) and a guest.
// Grants, each on the case's own objects:
//
//	none        nothing shared
//	user        a user grant of edit on the space, the collection and the site
//	team        a grant of create to the caller's team on the same three
//	collection  a grant of edit to the caller's team on the collection above
//	            (the space's collection's parent, the collection's parent);
//	            sites are in no collection, so it gives nothing there
//	both        a user grant of read and a team grant of admin on the three
//
// Every space and collection inherits its defaultLevel, so a member's
// organization role applies to all of them.
//
// Actions (the REST operation that stands for each):
//
//	space       read   GET /v1/spaces/{id}                    (read)
//	            edit   POST /v1/spaces/{id}/change-requests   (edit)
//	            merge  POST …/change-requests/{cr}/merge      (edit)
//	            manage PATCH /v1/spaces/{id}                  (admin)
//	            delete DELETE /v1/spaces/{id}                 (admin)
//	collection  read   GET /v1/collections/{id}               (read)
//	            edit   POST /v1/orgs/{org}/spaces with the collection as
//	                   parent (create); a guest with nothing to create in
//	                   hears 403 for the organization before any word on
//	                   the parent (rest/boundary.go, changeFloor)
//	            merge  merge a change request of a space in the collection
//	                   that has no grant of its own and inherits (edit)
//	            manage PATCH /v1/collections/{id}                  (admin)
//	            delete DELETE /v1/collections/{id}                 (admin)
//	site        read   GET /v1/orgs/{org}/sites/{id}          (any role)
//	            edit   PATCH /v1/orgs/{org}/sites/{id}        (create)
//	            merge  POST …/sites/{id}/publish              (create)
//	            manage POST …/sites/{id}/permissions, sharing the site
//	                   with the caller as read (admin; a read grant never
//	                   lowers a role, so the rest of the row is unchanged)
//	            delete DELETE /v1/orgs/{org}/sites/{id}       (create)
//
// In the table 200 stands for the operation's success (201 for the
// creations, 205 for the deletions); every answer is also checked against
// the reference's shapes. Each GET that succeeds must report permissions
// that agree with its row: space view/edit/merge/admin with read, edit,
// merge and manage; collection view/create/admin with read, edit and
// manage; site view/edit/admin with read, edit and manage.
const sharingMatrix = `
role    grant      | space: read edit merge manage delete | collection: read edit merge manage delete | site: read edit merge manage delete
admin   none       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
admin   user       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
admin   team       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
admin   collection | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
admin   both       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
create  none       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
create  user       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
create  team       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
create  collection | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
create  both       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
review  none       | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
review  user       | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
review  team       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
review  collection | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
review  both       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
edit    none       | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
edit    user       | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
edit    team       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
edit    collection | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
edit    both       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
comment none       | 200 403 403 403 403 | 200 403 403 403 403 | 200 403 403 403 403
comment user       | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
comment team       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
comment collection | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
comment both       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
read    none       | 200 403 403 403 403 | 200 403 403 403 403 | 200 403 403 403 403
read    user       | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
read    team       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
read    collection | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
read    both       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
guest   none       | 404 404 404 404 404 | 404 403 404 404 404 | 404 404 404 404 404
guest   user       | 200 200 200 403 403 | 200 403 200 403 403 | 200 403 403 403 403
guest   team       | 200 200 200 403 403 | 200 200 200 403 403 | 200 200 200 403 200
guest   collection | 200 200 200 403 403 | 200 403 200 403 403 | 404 404 404 404 404
guest   both       | 200 200 200 200 200 | 200 200 200 200 200 | 200 200 200 200 200
`

// matrixRow is one line of the table: the answers for space, collection
// and site, each read, edit, merge, manage, delete.
type matrixRow struct {
	role, grant string
	answers     [3][5]string
}

func (r matrixRow) String() string {
	parts := make([]string, 3)
	for i, a := range r.answers {
		parts[i] = strings.Join(a[:], " ")
	}
	return fmt.Sprintf("%-7s %-10s | %s", r.role, r.grant, strings.Join(parts, " | "))
}

func parseSharingMatrix(t *testing.T) []matrixRow {
	t.Helper()
	var rows []matrixRow
	lines := strings.Split(strings.TrimSpace(sharingMatrix), "\n")
	for _, line := range lines[1:] {
		cols := strings.Split(line, "|")
		head := strings.Fields(cols[0])
		if len(cols) != 4 || len(head) != 2 {
			t.Fatalf("matrix line %q: want role, grant and three objects", line)
		}
		row := matrixRow{role: head[0], grant: head[1]}
		for i, c := range cols[1:] {
			f := strings.Fields(c)
			if len(f) != 5 {
				t.Fatalf("matrix line %q: want five answers per object", line)
			}
			copy(row.answers[i][:], f)
		}
		rows = append(rows, row)
	}
	if len(rows) != 7*5 {
		t.Fatalf("matrix has %d rows, want 35", len(rows))
	}
	return rows
}

// matrixCase is one caller and the objects only it acts on.
type matrixCase struct {
	user              testkit.User
	team              string
	parent, coll      string // the collection above, and the collection
	space, inColl     string // a space in coll with its own grants, one without
	spaceCR, inCollCR string // a change request of each, to merge
	site              string
}

func TestSharingMatrix(t *testing.T) {
	rows := parseSharingMatrix(t)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		owner, org := s.NewUser(t, "owner@matrix.test", "Matrix")
		ctx := testkit.Fixture(context.Background())
		roles := map[string]*access.Role{
			"admin": testkit.RoleOf(access.Admin), "create": testkit.RoleOf(access.Create),
			"review": testkit.RoleOf(access.Review), "edit": testkit.RoleOf(access.Edit),
			"comment": testkit.RoleOf(access.Comment), "read": testkit.RoleOf(access.Read), "guest": nil,
		}
		orgPath := "/v1/orgs/" + org
		create := func(op, path string, body map[string]any) string {
			return s.Call(t, op, owner.Token, "POST", path, body, 201).JSON(t)["id"].(string)
		}
		give := func(kind grant.ObjectKind, object string, pk grant.PrincipalKind, principal string, role access.Role) {
			t.Helper()
			err := s.Client().Grant.Create().SetOrganizationID(org).SetObjectKind(kind).SetObjectID(object).
				SetPrincipalKind(pk).SetPrincipalID(principal).SetRole(role).Exec(ctx)
			if err != nil {
				t.Fatal(err)
			}
		}

		for i, row := range rows {
			u, _ := s.NewUser(t, fmt.Sprintf("%s-%s@matrix.test", row.role, row.grant), "")
			s.AddMember(t, org, u, roles[row.role])
			team, err := s.Client().Team.Create().SetOrganizationID(org).SetTitle(fmt.Sprintf("Team %d", i)).Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Client().TeamMember.Create().SetTeamID(team.ID).SetUserID(u.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			c := matrixCase{user: u, team: team.ID}
			c.parent = create("createCollection", orgPath+"/collections", map[string]any{"title": "Above"})
			c.coll = create("createCollection", orgPath+"/collections", map[string]any{"title": "Shelf", "parent": c.parent})
			c.space = create("createSpace", orgPath+"/spaces", map[string]any{"title": "Guide", "parent": c.coll})
			c.inColl = create("createSpace", orgPath+"/spaces", map[string]any{"title": "Inherits", "parent": c.coll})
			c.spaceCR = create("createChangeRequest", "/v1/spaces/"+c.space+"/change-requests", map[string]any{"subject": "Fix"})
			c.inCollCR = create("createChangeRequest", "/v1/spaces/"+c.inColl+"/change-requests", map[string]any{"subject": "Fix"})
			c.site = create("createSite", orgPath+"/sites", map[string]any{"title": "Docs"})

			type target struct {
				kind grant.ObjectKind
				id   string
			}
			own := []target{{grant.ObjectKindSpace, c.space}, {grant.ObjectKindCollection, c.coll}, {grant.ObjectKindSite, c.site}}
			switch row.grant {
			case "none":
			case "user":
				for _, o := range own {
					give(o.kind, o.id, grant.PrincipalKindUser, u.ID, access.Edit)
				}
			case "team":
				for _, o := range own {
					give(o.kind, o.id, grant.PrincipalKindTeam, team.ID, access.Create)
				}
			case "collection":
				give(grant.ObjectKindCollection, c.parent, grant.PrincipalKindTeam, team.ID, access.Edit)
			case "both":
				for _, o := range own {
					give(o.kind, o.id, grant.PrincipalKindUser, u.ID, access.Read)
					give(o.kind, o.id, grant.PrincipalKindTeam, team.ID, access.Admin)
				}
			default:
				t.Fatalf("unknown grant %q", row.grant)
			}

			got := matrixRow{role: row.role, grant: row.grant}
			got.answers[0] = spaceAnswers(t, s, c)
			got.answers[1] = collectionAnswers(t, s, org, c)
			got.answers[2] = siteAnswers(t, s, org, c)
			if got != row {
				t.Errorf("the server answers\n  %s\nthe table says\n  %s", got, row)
			}
		}
	})
}

// matrixAnswer is the table's word for a status: 200 for any success.
func matrixAnswer(status int) string {
	if status >= 200 && status < 300 {
		return "200"
	}
	return fmt.Sprint(status)
}

// act sends one action as the case's caller and checks the answer's shape.
func act(t *testing.T, s *testkit.Server, c matrixCase, op, method, path string, body any) (*testkit.Response, string) {
	t.Helper()
	resp := s.Request(t, c.user.Token, method, path, body)
	testkit.CheckContract(t, op, method, path, resp)
	return resp, matrixAnswer(resp.Status)
}

// agrees checks a GET answer's permissions against the row: each named
// permission is true exactly where its action answers 200.
func agrees(t *testing.T, what string, resp *testkit.Response, want map[string]string) {
	t.Helper()
	if resp.Status != 200 {
		return
	}
	perms, _ := resp.JSON(t)["permissions"].(map[string]any)
	for name, a := range want {
		if v, _ := perms[name].(bool); v != (a == "200") {
			t.Errorf("%s: permissions.%s = %v where the table says %s\n%s", what, name, perms[name], a, resp.Body)
		}
	}
}

func spaceAnswers(t *testing.T, s *testkit.Server, c matrixCase) [5]string {
	t.Helper()
	var out [5]string
	p := "/v1/spaces/" + c.space
	resp, a := act(t, s, c, "getSpaceById", "GET", p, nil)
	out[0] = a
	_, out[1] = act(t, s, c, "createChangeRequest", "POST", p+"/change-requests", map[string]any{"subject": "Mine"})
	_, out[2] = act(t, s, c, "mergeChangeRequest", "POST", p+"/change-requests/"+c.spaceCR+"/merge", nil)
	_, out[3] = act(t, s, c, "updateSpaceById", "PATCH", p, map[string]any{"title": "Renamed"})
	_, out[4] = act(t, s, c, "deleteSpaceById", "DELETE", p, nil)
	agrees(t, "space "+c.user.Email, resp, map[string]string{"view": out[0], "edit": out[1], "merge": out[2], "admin": out[3]})
	if out[4] != out[3] {
		t.Errorf("space %s: delete answers %s, manage %s: both need admin", c.user.Email, out[4], out[3])
	}
	return out
}

func collectionAnswers(t *testing.T, s *testkit.Server, org string, c matrixCase) [5]string {
	t.Helper()
	var out [5]string
	p := "/v1/collections/" + c.coll
	resp, a := act(t, s, c, "getCollectionById", "GET", p, nil)
	out[0] = a
	_, out[1] = act(t, s, c, "createSpace", "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Mine", "parent": c.coll})
	_, out[2] = act(t, s, c, "mergeChangeRequest", "POST", "/v1/spaces/"+c.inColl+"/change-requests/"+c.inCollCR+"/merge", nil)
	_, out[3] = act(t, s, c, "updateCollectionById", "PATCH", p, map[string]any{"title": "Renamed"})
	_, out[4] = act(t, s, c, "deleteCollectionById", "DELETE", p, nil)
	agrees(t, "collection "+c.user.Email, resp, map[string]string{"view": out[0], "create": out[1], "admin": out[3]})
	return out
}

func siteAnswers(t *testing.T, s *testkit.Server, org string, c matrixCase) [5]string {
	t.Helper()
	var out [5]string
	p := "/v1/orgs/" + org + "/sites/" + c.site
	resp, a := act(t, s, c, "getSiteById", "GET", p, nil)
	out[0] = a
	_, out[3] = act(t, s, c, "inviteToSite", "POST", p+"/permissions", map[string]any{"role": "read", "users": []string{c.user.ID}})
	_, out[1] = act(t, s, c, "updateSiteById", "PATCH", p, map[string]any{"title": "Renamed"})
	_, out[2] = act(t, s, c, "publishSite", "POST", p+"/publish", nil)
	_, out[4] = act(t, s, c, "deleteSiteById", "DELETE", p, nil)
	agrees(t, "site "+c.user.Email, resp, map[string]string{"view": out[0], "edit": out[1], "admin": out[3]})
	return out
}
