package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/comment"
	entpage "github.com/folio/folio/ent/page"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// commentSetup is a space whose content holds Guide and Old, with an
// editor, a commenter, a reader and a stranger.
type commentSetup struct {
	s                                *testkit.Server
	admin, editor, commenter, reader testkit.User
	stranger                         testkit.User
	org, space, guide, old           string
}

func newCommentSetup(t *testing.T, s *testkit.Server) commentSetup {
	t.Helper()
	c := commentSetup{s: s}
	c.admin, c.org = s.NewUser(t, "admin@acme.com", "Acme")
	c.editor, _ = s.NewUser(t, "editor@acme.com", "")
	s.AddMember(t, c.org, c.editor, testkit.RoleOf(access.Edit))
	c.commenter, _ = s.NewUser(t, "commenter@acme.com", "")
	s.AddMember(t, c.org, c.commenter, testkit.RoleOf(access.Comment))
	c.reader, _ = s.NewUser(t, "reader@acme.com", "")
	s.AddMember(t, c.org, c.reader, testkit.RoleOf(access.Read))
	c.stranger, _ = s.NewUser(t, "stranger@else.org", "Elsewhere")
	c.space = s.Call(t, "createSpace", c.admin.Token, "POST", "/v1/orgs/"+c.org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
	cr := c.newCR(t)
	c.edit(t, cr, map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": "# Guide\n\nRead this first.\n"}},
		map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": "# Old\n\nGoing away.\n"}})
	c.merge(t, cr)
	var tree struct{ Pages []struct{ ID, Title string } }
	s.Call(t, "listPages", c.reader.Token, "GET", "/v1/spaces/"+c.space+"/content/pages", nil, 200).Decode(t, &tree)
	for _, p := range tree.Pages {
		switch p.Title {
		case "Guide":
			c.guide = p.ID
		case "Old":
			c.old = p.ID
		}
	}
	return c
}

func (c commentSetup) newCR(t *testing.T) string {
	t.Helper()
	return c.s.Call(t, "createChangeRequest", c.editor.Token, "POST", "/v1/spaces/"+c.space+"/change-requests", map[string]any{}, 201).JSON(t)["id"].(string)
}

func (c commentSetup) edit(t *testing.T, cr string, changes ...map[string]any) {
	t.Helper()
	c.s.Call(t, "updateChangeRequestContent", c.editor.Token, "POST", "/v1/spaces/"+c.space+"/change-requests/"+cr+"/content", map[string]any{"changes": changes}, 200)
}

func (c commentSetup) merge(t *testing.T, cr string) {
	t.Helper()
	c.s.Call(t, "mergeChangeRequest", c.editor.Token, "POST", "/v1/spaces/"+c.space+"/change-requests/"+cr+"/merge", nil, 200)
}

func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

const commentFields = `id status body postedBy { id displayName } resolvedBy { id } editedAt
	reactions { emoji count users { user { id } } }
	replies(first: 10) { totalCount edges { node { id body postedBy { id } } } }
	target { space revision changeRequest page { id title path outdated } node { id preview } }
	permissions { view edit reply delete }`

// TestCommentsGraphQLWorkflow is the workflow through GraphQL.
func TestCommentsGraphQLWorkflow(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		c := newCommentSetup(t, s)
		post := `mutation($s: ID!, $cr: String, $in: PostCommentInput!) { postComment(spaceId: $s, changeRequestId: $cr, input: $in) { ` + commentFields + ` } }`
		onOld := s.MustGraphQL(t, c.commenter.Token, post, map[string]any{"s": c.space, "in": map[string]any{"markdown": "Still needed?", "page": c.old}})["postComment"]

		cr := c.newCR(t)
		c.edit(t, cr, map[string]any{"operation": "delete_page", "page": c.old})
		doc := s.MustGraphQL(t, c.reader.Token, `query($s: ID!, $cr: String!, $p: ID!) { space(id: $s) { changeRequest(id: $cr) { revision { page(id: $p) { document } } } } }`,
			map[string]any{"s": c.space, "cr": cr, "p": c.guide})
		key := dig(doc, "space", "changeRequest", "revision", "page", "document", "nodes", 1, "key").(string)
		c1 := s.MustGraphQL(t, c.editor.Token, post, map[string]any{"s": c.space, "cr": cr, "in": map[string]any{"markdown": "Reword.", "page": c.guide, "node": key}})["postComment"]
		id1 := dig(c1, "id").(string)
		if dig(c1, "target", "page", "title") != "Guide" || dig(c1, "target", "node", "preview") != "Read this first." ||
			dig(c1, "target", "changeRequest") != cr || dig(c1, "status") != "open" || dig(c1, "permissions", "edit") != true {
			t.Fatalf("posted: %v", c1)
		}
		s.MustGraphQL(t, c.commenter.Token, `mutation($s: ID!, $cr: String, $c: ID!) { postCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, markdown: "Agreed.") { id } }`,
			map[string]any{"s": c.space, "cr": cr, "c": id1})
		// A second reply, edited by its author, reacted to, then deleted.
		extra := s.MustGraphQL(t, c.editor.Token, `mutation($s: ID!, $cr: String, $c: ID!) { postCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, markdown: "Typo.") { id } }`,
			map[string]any{"s": c.space, "cr": cr, "c": id1})["postCommentReply"].(map[string]any)["id"]
		updateReply := `mutation($s: ID!, $cr: String, $c: ID!, $r: ID!, $in: UpdateCommentReplyInput!) { updateCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, replyId: $r, input: $in) {
			id body editedAt reactions { emoji count } permissions { edit delete } } }`
		ed := s.MustGraphQL(t, c.editor.Token, updateReply, map[string]any{"s": c.space, "cr": cr, "c": id1, "r": extra,
			"in": map[string]any{"markdown": "Typo fixed.", "addedReactions": []string{"2705"}}})["updateCommentReply"]
		if dig(ed, "body") != "Typo fixed." || dig(ed, "editedAt") == nil || dig(ed, "reactions", 0, "emoji") != "✅" || dig(ed, "permissions", "edit") != true {
			t.Fatalf("edited reply: %v", ed)
		}
		if _, errs := s.GraphQL(t, c.commenter.Token, updateReply, map[string]any{"s": c.space, "cr": cr, "c": id1, "r": extra,
			"in": map[string]any{"markdown": "Mine."}}); len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("another user's reply: %v", errs)
		}
		if got := dig(s.MustGraphQL(t, c.reader.Token, `query($id: ID!) { node(id: $id) { ... on CommentReply { body postedBy { id } } } }`, map[string]any{"id": extra}), "node"); dig(got, "body") != "Typo fixed." || dig(got, "postedBy", "id") != c.editor.ID {
			t.Fatalf("reply by node: %v", got)
		}
		if d := s.MustGraphQL(t, c.editor.Token, `mutation($s: ID!, $cr: String, $c: ID!, $r: ID!) { deleteCommentReply(spaceId: $s, changeRequestId: $cr, commentId: $c, replyId: $r) }`,
			map[string]any{"s": c.space, "cr": cr, "c": id1, "r": extra}); d["deleteCommentReply"] != true {
			t.Fatalf("delete reply: %v", d)
		}
		update := `mutation($s: ID!, $cr: String, $c: ID!, $in: UpdateCommentInput!) { updateComment(spaceId: $s, changeRequestId: $cr, commentId: $c, input: $in) { ` + commentFields + ` } }`
		s.MustGraphQL(t, c.commenter.Token, update, map[string]any{"s": c.space, "cr": cr, "c": id1, "in": map[string]any{"addedReactions": []string{"🎉"}}})
		got := s.MustGraphQL(t, c.editor.Token, update, map[string]any{"s": c.space, "cr": cr, "c": id1, "in": map[string]any{"addedReactions": []string{"1f389"}}})["updateComment"]
		if dig(got, "reactions", 0, "emoji") != "🎉" || dig(got, "reactions", 0, "count") != float64(2) || dig(got, "replies", "totalCount") != float64(1) {
			t.Fatalf("reactions: %v", dig(got, "reactions"))
		}
		got = s.MustGraphQL(t, c.commenter.Token, update, map[string]any{"s": c.space, "cr": cr, "c": id1, "in": map[string]any{"resolved": true}})["updateComment"]
		if dig(got, "status") != "resolved" || dig(got, "resolvedBy", "id") != c.commenter.ID {
			t.Fatalf("resolved: %v", got)
		}
		c2 := s.MustGraphQL(t, c.commenter.Token, post, map[string]any{"s": c.space, "cr": cr, "in": map[string]any{"markdown": "Fine."}})["postComment"]
		list := func(args string) []string {
			t.Helper()
			data := s.MustGraphQL(t, c.reader.Token, `query($s: ID!, $cr: String!) { space(id: $s) { changeRequest(id: $cr) { openComments comments(`+args+`) { totalCount edges { node { id } } } } } }`,
				map[string]any{"s": c.space, "cr": cr})
			var ids []string
			for _, e := range dig(data, "space", "changeRequest", "comments", "edges").([]any) {
				ids = append(ids, dig(e, "node", "id").(string))
			}
			return ids
		}
		id2 := dig(c2, "id").(string)
		for args, want := range map[string][]string{
			"first: 10":                            {id2, id1},
			"order: asc":                           {id1, id2},
			"status: open":                         {id2},
			"status: resolved":                     {id1},
			fmt.Sprintf("targetPage: %q", c.guide): {id1},
			fmt.Sprintf("authors: [%q]", c.commenter.ID): {id2},
		} {
			if got := list(args); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("comments(%s): %v, want %v", args, got, want)
			}
		}

		crCommenters := s.MustGraphQL(t, c.reader.Token, `query($s: ID!, $cr: String!) { space(id: $s) { changeRequest(id: $cr) { commenters { totalCount edges { node { user { id } role } } } } } }`,
			map[string]any{"s": c.space, "cr": cr})
		if got := dig(crCommenters, "space", "changeRequest", "commenters"); dig(got, "totalCount") != float64(2) ||
			dig(got, "edges", 0, "node", "user", "id") != c.editor.ID || dig(got, "edges", 1, "node", "role") != "comment" {
			t.Fatalf("change request commenters: %v", got)
		}
		c.merge(t, cr)
		after := s.MustGraphQL(t, c.reader.Token, `query($s: ID!, $c: ID!, $old: ID!, $p: ID!) { space(id: $s) {
			openComments comment(id: $old) { target { page { title outdated } } }
			revision { page(id: $p) { comments { totalCount } } }
			commenters { edges { node { user { id } role } } } }
			node(id: $c) { ... on Comment { target { page { title outdated } } } } }`,
			map[string]any{"s": c.space, "c": id1, "old": dig(onOld, "id"), "p": c.guide})
		if dig(after, "node", "target", "page", "title") != "Guide" || dig(after, "node", "target", "page", "outdated") != false ||
			dig(after, "space", "comment", "target", "page", "outdated") != true || dig(after, "space", "comment", "target", "page", "title") != "Old" ||
			dig(after, "space", "openComments") != float64(1) || dig(after, "space", "revision", "page", "comments", "totalCount") != float64(1) ||
			dig(after, "space", "commenters", "edges", 0, "node", "user", "id") != c.commenter.ID {
			t.Fatalf("after merge: %v", after)
		}
		// The page tree is written without resolvers: comments are read one
		// page at a time.
		_, errs := s.GraphQL(t, c.reader.Token, `query($s: ID!) { space(id: $s) { revision { pages { title comments { totalCount } } } } }`, map[string]any{"s": c.space})
		if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Fatalf("comments inside the page tree: %v", errs)
		}
		_, errs = s.GraphQL(t, c.editor.Token, post, map[string]any{"s": c.space, "cr": cr, "in": map[string]any{"markdown": "late"}})
		if len(errs) != 1 || errs[0].Extensions["code"] != "CONFLICT" {
			t.Fatalf("post in a merged change request: %v", errs)
		}

		// Refusals: a reader posting, a stranger, another user's body, a
		// reaction that is not an emoji.
		for _, r := range []struct {
			token, query string
			vars         map[string]any
			code         string
		}{
			{c.reader.Token, post, map[string]any{"s": c.space, "in": map[string]any{"markdown": "x"}}, "FORBIDDEN"},
			{c.stranger.Token, post, map[string]any{"s": c.space, "in": map[string]any{"markdown": "x"}}, "NOT_FOUND"},
			{c.editor.Token, post, map[string]any{"s": c.space, "in": map[string]any{"markdown": ""}}, "BAD_USER_INPUT"},
			{c.editor.Token, update, map[string]any{"s": c.space, "c": dig(onOld, "id"), "in": map[string]any{"markdown": "mine now"}}, "FORBIDDEN"},
			{c.editor.Token, update, map[string]any{"s": c.space, "c": dig(onOld, "id"), "in": map[string]any{"addedReactions": []string{"xyz"}}}, "BAD_USER_INPUT"},
			{c.commenter.Token, `mutation($s: ID!, $c: ID!) { deleteComment(spaceId: $s, changeRequestId: "` + cr + `", commentId: $c) }`, map[string]any{"s": c.space, "c": id1}, "FORBIDDEN"},
			{c.stranger.Token, `query($c: ID!) { node(id: $c) { id } }`, map[string]any{"c": id1}, "NOT_FOUND"},
		} {
			if _, errs := s.GraphQL(t, r.token, r.query, r.vars); len(errs) != 1 || errs[0].Extensions["code"] != r.code {
				t.Errorf("%v: %v, want %s", r.vars, errs, r.code)
			}
		}

		// Deletes: the author deletes the comment with its reply.
		if d := s.MustGraphQL(t, c.editor.Token, `mutation($s: ID!, $c: ID!) { deleteComment(spaceId: $s, changeRequestId: "`+cr+`", commentId: $c) }`,
			map[string]any{"s": c.space, "c": id1}); d["deleteComment"] != true {
			t.Fatalf("delete: %v", d)
		}
		if n := s.Client().CommentReply.Query().CountX(context.Background()); n != 0 {
			t.Fatalf("%d replies left", n)
		}
	})
}

// TestCommentsNestedStatementCount: the nested read costs the same
// statements for a page of 50 comments with replies, reactions and authors
// as for a page of 5.
func TestCommentsNestedStatementCount(t *testing.T) {
	const query = `query($s: ID!) { space(id: $s) { comments(first: 50, status: all) { totalCount edges { node {
		body postedBy { displayName } reactions { emoji count users { user { displayName } reactedAt } }
		replies(first: 5) { totalCount edges { node { body postedBy { displayName } reactions { emoji count } } } }
		target { page { title outdated } } permissions { edit } } } } } }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		c := newCommentSetup(t, s)
		ctx := context.Background()
		users := []testkit.User{c.editor, c.commenter, c.admin}
		count := func(n int) int64 {
			sp := s.Call(t, "createSpace", c.admin.Token, "POST", "/v1/orgs/"+c.org+"/spaces", map[string]any{"title": "S"}, 201).JSON(t)["id"].(string)
			rev := s.SeedPages(t, sp, 3)
			s.Client().Space.UpdateOneID(sp).SetRevisionID(rev.ID).ExecX(testkit.Fixture(context.Background()))
			page := s.Client().Page.Query().Where(entpage.ChunkID(rev.ID)).FirstX(ctx)
			t0 := time.Now()
			for i := 0; i < n; i++ {
				u := users[i%len(users)]
				cm := s.Client().Comment.Create().SetSpaceID(sp).SetBody(fmt.Sprint("comment ", i)).SetPostedBy(u.ID).
					SetRevisionID(rev.ID).SetPageID(page.PageID).SetPageTitle("x").SetCreatedAt(t0.Add(time.Duration(i) * time.Millisecond))
				if i%2 == 0 {
					cm.SetStatus(comment.StatusResolved).SetResolvedAt(t0).SetResolvedBy(users[(i+1)%3].ID)
				}
				cmt := cm.SaveX(testkit.Fixture(context.Background()))
				var reactions []*ent.CommentReactionCreate
				for j, ru := range users[:2] {
					reactions = append(reactions, s.Client().CommentReaction.Create().SetSubjectID(cmt.ID).SetSpaceID(sp).
						SetEmoji([]string{"👍", "🎉"}[j]).SetUserID(ru.ID).SetCreatedAt(t0))
				}
				for j := 0; j < 2; j++ {
					rp := s.Client().CommentReply.Create().SetCommentID(cmt.ID).SetSpaceID(sp).SetBody("reply").SetPostedBy(users[j].ID).SaveX(testkit.Fixture(context.Background()))
					reactions = append(reactions, s.Client().CommentReaction.Create().SetSubjectID(rp.ID).SetSpaceID(sp).
						SetEmoji("❤️").SetUserID(users[2].ID).SetCreatedAt(t0))
				}
				s.Client().CommentReaction.CreateBulk(reactions...).ExecX(testkit.Fixture(context.Background()))
			}
			before := s.Statements()
			data := s.MustGraphQL(t, c.reader.Token, query, map[string]any{"s": sp})
			if got := len(dig(data, "space", "comments", "edges").([]any)); got != n {
				t.Fatalf("%d comments listed, want %d", got, n)
			}
			if got := dig(data, "space", "comments", "edges", 0, "node", "replies", "totalCount"); got != float64(2) {
				t.Fatalf("replies: %v", got)
			}
			return s.Statements() - before
		}
		five, fifty := count(5), count(50)
		if five != fifty {
			t.Fatalf("statements: %d for 5 comments, %d for 50", five, fifty)
		}
		t.Logf("%d statements for 5 and for 50 comments", five)
	})
}
