package rest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// spaceFields are the fields of Space a share-key holder may read in
// GraphQL: the space's own, as REST's getSpace presents them.
const spaceFields = `id title emoji visibility editMode defaultLevel openComments changeRequestCount changeRequestsOpen changeRequestsDraft
	urls { location app published public } permissions { view access admin edit comment merge review }`

// TestShareKeyReadsOnlyTheSpace reads a share-link space with its share key
// through both APIs: GraphQL gives exactly the fields REST gives, and what
// the space leads to (its organization, its collection, its content, its
// custom-field values) is refused in both, as reading it directly is; a
// member still reaches everything.
func TestShareKeyReadsOnlyTheSpace(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSpaceFixture(t, s)
		coll := f.createCollection(t, map[string]any{"title": "Secret plans"})["id"].(string)
		sp := f.createSpace(t, map[string]any{"title": "Handbook", "emoji": "📘", "parent": coll})["id"].(string)
		s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/custom-fields", map[string]any{"name": "owner", "type": "text"}, 201)
		s.Call(t, "updateSpaceCustomFields", f.admin.Token, "PATCH", "/v1/spaces/"+sp+"/custom-fields",
			map[string]any{"values": map[string]any{"owner": map[string]any{"value": "Ada Lovelace"}}}, 204)
		published := s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"visibility": "share-link"}, 200).
			JSON(t)["urls"].(map[string]any)["published"].(string)
		u, err := url.Parse(published)
		if err != nil {
			t.Fatal(err)
		}
		key := u.Query().Get("shareKey")
		if key == "" {
			t.Fatalf("no share key in %s", published)
		}
		secrets := []string{"Acme", "Secret plans", "Ada Lovelace"}

		// REST: the space, and nothing it leads to.
		rest := s.Call(t, "getSpaceById", f.stranger.Token, "GET", "/v1/spaces/"+sp+"?shareKey="+key, nil, 200).JSON(t)
		s.Fail(t, "getSpaceById", f.stranger.Token, "GET", "/v1/spaces/"+sp+"?shareKey=wrong", nil, 404)
		s.Fail(t, "getOrganizationById", f.stranger.Token, "GET", "/v1/orgs/"+f.org, nil, 404)
		s.Fail(t, "getCollectionById", f.stranger.Token, "GET", "/v1/collections/"+coll, nil, 404)
		s.Fail(t, "getSpaceCustomFields", f.stranger.Token, "GET", "/v1/spaces/"+sp+"/custom-fields?shareKey="+key, nil, 404)
		if r := s.Request(t, f.stranger.Token, "GET", "/v1/spaces/"+sp+"/content?shareKey="+key, nil); r.Status != 404 {
			t.Fatalf("content through the share key: %d %s", r.Status, r.Body)
		}

		// GraphQL: the same fields, with the same values.
		read := `query($id: ID!, $key: String) { space(id: $id, shareKey: $key) { %s } }`
		vars := map[string]any{"id": sp, "key": key}
		gql := s.MustGraphQL(t, f.stranger.Token, fmt.Sprintf(read, spaceFields), vars)["space"].(map[string]any)
		for _, c := range []struct{ gql, rest any }{
			{gql["id"], rest["id"]}, {gql["title"], rest["title"]}, {gql["emoji"], rest["emoji"]},
			// GraphQL enum names spell REST's '-' as '_'.
			{gql["visibility"], strings.ReplaceAll(rest["visibility"].(string), "-", "_")}, {gql["editMode"], rest["editMode"]}, {gql["defaultLevel"], rest["defaultLevel"]},
			{gql["openComments"], rest["comments"]}, {gql["changeRequestCount"], rest["changeRequests"]},
			{gql["changeRequestsOpen"], rest["changeRequestsOpen"]}, {gql["changeRequestsDraft"], rest["changeRequestsDraft"]},
			{fmt.Sprint(gql["urls"]), fmt.Sprint(withNulls(rest["urls"], "published", "public"))},
		} {
			if fmt.Sprint(c.gql) != fmt.Sprint(c.rest) {
				t.Errorf("GraphQL %v, REST %v", c.gql, c.rest)
			}
		}
		for k, v := range gql["permissions"].(map[string]any) {
			if rest["permissions"].(map[string]any)[k] != v || v != false {
				t.Errorf("permission %s: GraphQL %v, REST %v", k, v, rest["permissions"].(map[string]any)[k])
			}
		}
		// Each way out of the space is refused, naming what is not found,
		// and no secret appears in the answer.
		for field, want := range map[string]string{
			"organization { id title }":                   "organization " + f.org + " not found",
			"parent { id title }":                         "collection " + coll + " not found",
			"customFields { value customField { name } }": "space " + sp + " not found",
			"revision { id pages { title } }":             "space " + sp + " not found",
		} {
			resp := s.Request(t, f.stranger.Token, "POST", "/graphql", map[string]any{"query": fmt.Sprintf(read, "id "+field), "variables": vars})
			for _, secret := range secrets {
				if strings.Contains(string(resp.Body), secret) {
					t.Errorf("%s: answer shows %q: %s", field, secret, resp.Body)
				}
			}
			_, errs := s.GraphQL(t, f.stranger.Token, fmt.Sprintf(read, "id "+field), vars)
			if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" || errs[0].Message != want {
				t.Errorf("%s: errors %+v, want NOT_FOUND %q", field, errs, want)
			}
		}

		// A member reaches everything, with or without the key.
		all := `organization { title } parent { title } customFields { value } revision { id }`
		for _, v := range []map[string]any{{"id": sp}, vars} {
			got := s.MustGraphQL(t, f.reader.Token, fmt.Sprintf(read, all), v)["space"].(map[string]any)
			if got["organization"].(map[string]any)["title"] != "Acme" || got["parent"].(map[string]any)["title"] != "Secret plans" ||
				got["customFields"].([]any)[0].(map[string]any)["value"] != "Ada Lovelace" || got["revision"].(map[string]any)["id"] != rest["revision"] {
				t.Fatalf("member's read: %v", got)
			}
		}
	})
}

// TestSpaceParentNeedsAccessToTheCollection: a member who can read a space
// but not the collection it is in (the collection's defaultLevel gives
// members nothing, the space's gives read) gets the collection's id from
// REST and a refusal for the collection itself, in both APIs.
func TestSpaceParentNeedsAccessToTheCollection(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSpaceFixture(t, s)
		coll := f.createCollection(t, map[string]any{"title": "Secret plans"})["id"].(string)
		s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+coll, map[string]any{"defaultLevel": nil}, 200)
		sp := f.createSpace(t, map[string]any{"title": "Handbook", "parent": coll})["id"].(string)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"defaultLevel": "read"}, 200)

		if got := s.Call(t, "getSpaceById", f.reader.Token, "GET", "/v1/spaces/"+sp, nil, 200).JSON(t); got["parent"] != coll {
			t.Fatalf("REST space: %v", got)
		}
		s.Fail(t, "getCollectionById", f.reader.Token, "GET", "/v1/collections/"+coll, nil, 404)
		q := `query($id: ID!) { space(id: $id) { title parent { title } } }`
		data, errs := s.GraphQL(t, f.reader.Token, q, map[string]any{"id": sp})
		if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" || data["space"].(map[string]any)["parent"] != nil ||
			data["space"].(map[string]any)["title"] != "Handbook" {
			t.Fatalf("GraphQL parent: %v %+v", data, errs)
		}
		if got := s.MustGraphQL(t, f.admin.Token, q, map[string]any{"id": sp})["space"].(map[string]any); got["parent"].(map[string]any)["title"] != "Secret plans" {
			t.Fatalf("admin's read: %v", got)
		}
	})
}

// withNulls gives a REST object the keys it leaves out, as null, the way
// GraphQL lists them.
func withNulls(v any, keys ...string) any {
	m := map[string]any{}
	for k, x := range v.(map[string]any) {
		m[k] = x
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			m[k] = nil
		}
	}
	return m
}
