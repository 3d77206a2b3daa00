package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"entgo.io/ent"

	"github.com/folio/folio/ent/changerequest"
	entschema "github.com/folio/folio/ent/schema"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/generated"
	"github.com/folio/folio/internal/testkit"
)

// decodeGraphQL turns MustGraphQL's data into a typed value.
func decodeGraphQL(t *testing.T, data map[string]any, v any) {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

// TestEnumsInGraphQL: closed sets are GraphQL enums whose names are the REST
// values with '-' and ':' as '_'; both APIs store and show the same value.
func TestEnumsInGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		admin, org := s.NewUser(t, "admin@acme.com", "Acme")
		var created struct {
			Coll struct{ ID string }
			Live struct {
				ID       string
				EditMode string
			}
		}
		decodeGraphQL(t, s.MustGraphQL(t, admin.Token, `mutation($org: ID!) {
			coll: createCollection(organizationId: $org, input: {title: "Guides"}) { id }
			live: createSpace(organizationId: $org, input: {title: "Live", editMode: live}) { id editMode }
		}`, map[string]any{"org": org}), &created)
		if created.Live.EditMode != "live" {
			t.Fatalf("created: %+v", created)
		}
		spaceID := created.Live.ID

		t.Run("share_link set over GraphQL is share-link in REST and in the database", func(t *testing.T) {
			var got struct {
				UpdateSpace struct{ Visibility, DefaultLevel string }
			}
			decodeGraphQL(t, s.MustGraphQL(t, admin.Token, `mutation($id: ID!) {
				updateSpace(id: $id, input: {visibility: share_link, defaultLevel: read}) { visibility defaultLevel }
			}`, map[string]any{"id": spaceID}), &got)
			if got.UpdateSpace.Visibility != "share_link" || got.UpdateSpace.DefaultLevel != "read" {
				t.Fatalf("updated: %+v", got)
			}
			if v := s.Client().Space.GetX(ctx, spaceID).Visibility; v != space.VisibilityShareLink {
				t.Fatalf("stored visibility %q", v)
			}
			rest := s.Call(t, "getSpaceById", admin.Token, http.MethodGet, "/v1/spaces/"+spaceID, nil, 200).JSON(t)
			if rest["visibility"] != "share-link" || rest["editMode"] != "live" {
				t.Fatalf("REST space: %v", rest)
			}
		})

		t.Run("in_collection over GraphQL, in-collection in REST", func(t *testing.T) {
			var got struct {
				CreateSpace struct{ ID string }
			}
			decodeGraphQL(t, s.MustGraphQL(t, admin.Token, `mutation($org: ID!, $coll: ID!) {
				createSpace(organizationId: $org, input: {title: "In", parent: $coll}) { id }
			}`, map[string]any{"org": org, "coll": created.Coll.ID}), &got)
			// The enum value arrives as a variable, as front ends send it.
			data := s.MustGraphQL(t, admin.Token, `mutation($id: ID!, $in: UpdateSpaceInput!) { updateSpace(id: $id, input: $in) { visibility } }`,
				map[string]any{"id": got.CreateSpace.ID, "in": map[string]any{"visibility": "in_collection"}})
			if v := data["updateSpace"].(map[string]any)["visibility"]; v != "in_collection" {
				t.Fatalf("visibility %v", v)
			}
			rest := s.Call(t, "getSpaceById", admin.Token, http.MethodGet, "/v1/spaces/"+got.CreateSpace.ID, nil, 200).JSON(t)
			if rest["visibility"] != "in-collection" {
				t.Fatalf("REST visibility %v", rest["visibility"])
			}
		})

		t.Run("the REST spelling is not a GraphQL value and changes nothing", func(t *testing.T) {
			before := s.Snapshot(t)
			_, errs := s.GraphQL(t, admin.Token, `mutation($id: ID!, $in: UpdateSpaceInput!) { updateSpace(id: $id, input: $in) { id } }`,
				map[string]any{"id": spaceID, "in": map[string]any{"visibility": "share-link"}})
			if len(errs) != 1 || errs[0].Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" || !strings.Contains(errs[0].Message, "SpaceVisibility") {
				t.Fatalf("errors: %+v", errs)
			}
			s.Unchanged(t, before)
		})

		t.Run("change request status: read, set and filter by enum", func(t *testing.T) {
			var cr struct {
				CreateChangeRequest struct {
					Number int
					Status string
				}
			}
			decodeGraphQL(t, s.MustGraphQL(t, admin.Token, `mutation($s: ID!) { createChangeRequest(spaceId: $s, subject: "Draft me") { number status } }`,
				map[string]any{"s": spaceID}), &cr)
			if cr.CreateChangeRequest.Status != "open" {
				t.Fatalf("created: %+v", cr)
			}
			s.MustGraphQL(t, admin.Token, `mutation($s: ID!) { updateChangeRequest(spaceId: $s, id: "1", input: {status: draft}) { status } }`,
				map[string]any{"s": spaceID})
			if st := s.Client().ChangeRequest.Query().Where(changerequest.SpaceID(spaceID)).OnlyX(ctx).Status; st != changerequest.StatusDraft {
				t.Fatalf("stored status %q", st)
			}
			var lists struct {
				Space struct {
					Drafts, Open struct {
						TotalCount int
						Edges      []struct{ Node struct{ Status string } }
					}
				}
			}
			decodeGraphQL(t, s.MustGraphQL(t, admin.Token, `query($s: ID!) { space(id: $s) {
				drafts: changeRequests(status: draft) { totalCount edges { node { status } } }
				open: changeRequests(status: open) { totalCount edges { node { status } } }
			} }`, map[string]any{"s": spaceID}), &lists)
			if lists.Space.Drafts.TotalCount != 1 || lists.Space.Drafts.Edges[0].Node.Status != "draft" || lists.Space.Open.TotalCount != 0 {
				t.Fatalf("lists: %+v", lists)
			}
			// REST takes the same value through the same application method.
			rest := s.Call(t, "listChangeRequestsForSpace", admin.Token, http.MethodGet, "/v1/spaces/"+spaceID+"/change-requests?status=draft", nil, 200).JSON(t)
			if items := rest["items"].([]any); len(items) != 1 || items[0].(map[string]any)["status"] != "draft" {
				t.Fatalf("REST list: %v", rest)
			}
		})

		t.Run("pt_br over GraphQL is pt-br in REST", func(t *testing.T) {
			data := s.MustGraphQL(t, admin.Token, `mutation($org: ID!) {
				createTranslation(organizationId: $org, input: {title: "Brazil", languages: [pt_br, en]}) { id languages }
			}`, map[string]any{"org": org})
			ts := data["createTranslation"].(map[string]any)
			if fmt.Sprint(ts["languages"]) != "[pt_br en]" {
				t.Fatalf("created: %v", ts)
			}
			rest := s.Call(t, "getTranslation", admin.Token, http.MethodGet, "/v1/orgs/"+org+"/translations/"+ts["id"].(string), nil, 200).JSON(t)
			if fmt.Sprint(rest["languages"]) != "[pt-br en]" {
				t.Fatalf("REST translation: %v", rest)
			}
		})

		t.Run("revision, page and custom-field types", func(t *testing.T) {
			var got struct {
				UpdateSpaceContent struct {
					Revision struct {
						Type  string
						Pages []struct{ Type string }
					}
				}
				CreateCustomField struct{ Type string }
			}
			decodeGraphQL(t, s.MustGraphQL(t, admin.Token, `mutation($s: ID!, $org: ID!) {
				updateSpaceContent(spaceId: $s, changes: [{operation: insert_page, title: "Intro", markdown: "Hello"}]) {
					revision { type pages { type } }
				}
				createCustomField(organizationId: $org, input: {name: "stage", type: select_single, options: ["a", "b"]}) { type }
			}`, map[string]any{"s": spaceID, "org": org}), &got)
			rev := got.UpdateSpaceContent.Revision
			if rev.Type != "edits" || len(rev.Pages) != 1 || rev.Pages[0].Type != "document" || got.CreateCustomField.Type != "select_single" {
				t.Fatalf("got %+v", got)
			}
			rest := s.Call(t, "getOrganizationCustomFieldByName", admin.Token, http.MethodGet, "/v1/orgs/"+org+"/custom-fields/stage", nil, 200).JSON(t)
			if rest["type"] != "select:single" {
				t.Fatalf("REST custom field: %v", rest)
			}
		})
	})
}

// TestPageInfo: connections answer all four Relay fields.
func TestPageInfo(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		admin, org := s.NewUser(t, "admin@acme.com", "Acme")
		for _, title := range []string{"A", "B", "C"} {
			s.MustGraphQL(t, admin.Token, `mutation($org: ID!, $t: String) { createSpace(organizationId: $org, input: {title: $t}) { id } }`,
				map[string]any{"org": org, "t": title})
		}
		type page struct {
			Organization struct {
				Spaces struct {
					Edges    []struct{ Cursor string }
					PageInfo struct {
						HasNextPage, HasPreviousPage bool
						StartCursor, EndCursor       *string
					}
				}
			}
		}
		query := `query($org: ID!, $after: String) { organization(id: $org) { spaces(first: 2, after: $after) {
			edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`

		var first page
		decodeGraphQL(t, s.MustGraphQL(t, admin.Token, query, map[string]any{"org": org}), &first)
		c, info := first.Organization.Spaces, first.Organization.Spaces.PageInfo
		if len(c.Edges) != 2 || !info.HasNextPage || info.HasPreviousPage ||
			info.StartCursor == nil || *info.StartCursor != c.Edges[0].Cursor || info.EndCursor == nil || *info.EndCursor != c.Edges[1].Cursor {
			t.Fatalf("first page: %+v", c)
		}

		var second page
		decodeGraphQL(t, s.MustGraphQL(t, admin.Token, query, map[string]any{"org": org, "after": *info.EndCursor}), &second)
		c, info = second.Organization.Spaces, second.Organization.Spaces.PageInfo
		if len(c.Edges) != 1 || info.HasNextPage || !info.HasPreviousPage ||
			info.StartCursor == nil || *info.StartCursor != c.Edges[0].Cursor || *info.EndCursor != c.Edges[0].Cursor {
			t.Fatalf("second page: %+v", c)
		}
	})
}

// TestEnumsMatchEnt: each GraphQL enum bound to an ent enum (gqlgen.yml)
// names exactly the field's values, spelled by the rule. gqlgen checks that
// every GraphQL value has a Go constant; this catches the other direction,
// a value added to ent that GraphQL could not answer.
func TestEnumsMatchEnt(t *testing.T) {
	gql := generated.NewExecutableSchema(generated.Config{}).Schema()
	for _, c := range []struct {
		enum   string
		fields []ent.Field
		field  string
	}{
		{"ChangeRequestStatus", entschema.ChangeRequest{}.Fields(), "status"},
		{"SpaceVisibility", entschema.Space{}.Fields(), "visibility"},
		{"EditMode", entschema.Space{}.Fields(), "edit_mode"},
		{"DefaultLevel", entschema.Space{}.Fields(), "default_level"},
		{"DefaultLevel", entschema.Collection{}.Fields(), "default_level"},
		{"RevisionType", entschema.Revision{}.Fields(), "type"},
		{"PageType", entschema.Page{}.Fields(), "kind"},
		{"CustomFieldType", entschema.CustomField{}.Fields(), "type"},
		{"OrganizationType", entschema.Organization{}.Fields(), "type"},
		{"OrganizationUseCase", entschema.Organization{}.Fields(), "use_case"},
		{"CommunityType", entschema.Organization{}.Fields(), "community_type"},
	} {
		var want []string
		for _, f := range c.fields {
			if d := f.Descriptor(); d.Name == c.field {
				for _, e := range d.Enums {
					want = append(want, strings.NewReplacer("-", "_", ":", "_").Replace(e.V))
				}
			}
		}
		var got []string
		for _, v := range gql.Types[c.enum].EnumValues {
			got = append(got, v.Name)
		}
		if len(want) == 0 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("enum %s is %v; ent field %s has %v", c.enum, got, c.field, want)
		}
	}
	var langs []string
	for _, v := range gql.Types["TranslationLanguage"].EnumValues {
		langs = append(langs, strings.ReplaceAll(v.Name, "_", "-"))
	}
	if strings.Join(langs, ",") != strings.Join(entschema.TranslationLanguages, ",") {
		t.Errorf("enum TranslationLanguage is %v; ent/schema.TranslationLanguages is %v", langs, entschema.TranslationLanguages)
	}
}
