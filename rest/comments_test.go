package rest_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/commentreaction"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// commentFixture is a content fixture with a member who has the comment
// role, and a space whose content holds two pages, Guide and Old.
type commentFixture struct {
	contentFixture
	commenter  testkit.User
	guide, old string
}

func newCommentFixture(t *testing.T, s *testkit.Server) commentFixture {
	t.Helper()
	f := commentFixture{contentFixture: newContentFixture(t, s)}
	f.commenter, _ = s.NewUser(t, "commenter@acme.com", "")
	s.AddMember(t, f.org, f.commenter, testkit.RoleOf(access.Comment))
	cr := f.newCR(t, "pages")
	f.edit(t, cr,
		insertPage("# Guide\n\nRead this first.\n\nThen this.\n", nil),
		insertPage("# Old\n\nTo be removed.\n", nil))
	f.merge(t, cr, 200)
	for _, p := range f.tree(t, "/v1/spaces/"+f.space+"/content/pages") {
		switch p.Title {
		case "Guide":
			f.guide = p.ID
		case "Old":
			f.old = p.ID
		}
	}
	if f.guide == "" || f.old == "" {
		t.Fatalf("pages not found")
	}
	return f
}

func (f commentFixture) spacePath() string { return "/v1/spaces/" + f.space }

// firstBlock is the key of a page's first block, read from its document
// (prefix: the space's or a change request's path).
func (f commentFixture) blockKey(t *testing.T, op, prefix, pageID string, i int) string {
	t.Helper()
	doc := f.s.Call(t, op, f.reader.Token, "GET", prefix+"/content/page/"+pageID, nil, 200).JSON(t)["document"].(map[string]any)
	return doc["nodes"].([]any)[i].(map[string]any)["key"].(string)
}

func (f commentFixture) post(t *testing.T, op, token, prefix string, body map[string]any) map[string]any {
	t.Helper()
	return f.s.Call(t, op, token, "POST", prefix+"/comments", body, 200).JSON(t)
}

func md(s string) map[string]any { return map[string]any{"markdown": s} }

// emojiSet is the emoji of reactions added in one request: they share a
// time, so their order is their ids'.
func emojiSet(rs []any) map[string]bool {
	out := map[string]bool{}
	for _, r := range rs {
		out[r.(map[string]any)["emoji"].(string)] = true
	}
	return out
}

func commentIDs(items []any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.(map[string]any)["id"].(string)
	}
	return out
}

// TestCommentsWorkflow is the workflow through REST: post on a page
// of a change request, reply, react from two users with a character and
// with code points, resolve, list with each filter, merge; the comment's
// page is still readable and a comment on a page the merge deleted reports
// outdated.
func TestCommentsWorkflow(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newCommentFixture(t, s)
		sp := f.spacePath()

		// A space comment on Old, before any change request deletes it.
		onOld := f.post(t, "postCommentInSpace", f.commenter.Token, sp, map[string]any{"body": md("Is this still needed?"), "page": f.old})
		if tg := onOld["target"].(map[string]any); tg["page"].(map[string]any)["outdated"] != false || tg["changeRequest"] != nil {
			t.Fatalf("space comment target: %v", tg)
		}

		cr := f.newCR(t, "review")
		crp := f.crPath(cr)
		f.edit(t, cr, map[string]any{"operation": "delete_page", "page": f.old})
		key := f.blockKey(t, "getPageInChangeRequestById", crp, f.guide, 1)
		c1 := f.post(t, "postCommentInChangeRequest", f.editor.Token, crp, map[string]any{"body": md("Reword **this**."), "page": f.guide, "node": key})
		id1 := c1["id"].(string)
		tg := c1["target"].(map[string]any)
		page := tg["page"].(map[string]any)
		if c1["status"] != "open" || c1["body"].(map[string]any)["markdown"] != "Reword **this**." || tg["changeRequest"] != cr ||
			tg["space"] != f.space || page["title"] != "Guide" || page["path"] != "guide" || page["outdated"] != false ||
			tg["node"].(map[string]any)["id"] != key || tg["node"].(map[string]any)["preview"] != "Read this first." ||
			c1["replies"].(float64) != 0 || c1["postedBy"].(map[string]any)["id"] != f.editor.ID {
			t.Fatalf("posted: %v", c1)
		}
		if p := c1["permissions"].(map[string]any); p["edit"] != true || p["reply"] != true || p["delete"] != true {
			t.Fatalf("author's permissions: %v", p)
		}
		c2 := f.post(t, "postCommentInChangeRequest", f.commenter.Token, crp, map[string]any{"body": md("Looks good overall.")})
		id2 := c2["id"].(string)

		// Reply, then reactions from two users: a character and code points.
		rp := s.Call(t, "postCommentReplyInChangeRequest", f.commenter.Token, "POST", crp+"/comments/"+id1+"/replies", map[string]any{"body": md("Agreed.")}, 200).JSON(t)
		if rp["object"] != "comment-reply" || rp["body"].(map[string]any)["markdown"] != "Agreed." {
			t.Fatalf("reply: %v", rp)
		}
		s.Call(t, "updateCommentInChangeRequest", f.commenter.Token, "PUT", crp+"/comments/"+id1, map[string]any{"addedReactions": []string{"👍"}}, 200)
		got := s.Call(t, "updateCommentInChangeRequest", f.editor.Token, "PUT", crp+"/comments/"+id1,
			map[string]any{"addedReactions": []string{"1f44d", "1f44d-1f3fd", "1f1eb-1f1f7"}, "removedReactions": []string{"🎉"}}, 200).JSON(t)
		// Adding again counts once.
		got = s.Call(t, "updateCommentInChangeRequest", f.editor.Token, "PUT", crp+"/comments/"+id1, map[string]any{"addedReactions": []string{"👍"}}, 200).JSON(t)
		rs := got["reactions"].([]any)
		if len(rs) != 3 {
			t.Fatalf("reactions: %v", rs)
		}
		thumbs := rs[0].(map[string]any)
		users := thumbs["users"].([]any)
		if thumbs["emoji"] != "👍" || thumbs["count"].(float64) != 2 || len(users) != 2 ||
			users[0].(map[string]any)["user"].(map[string]any)["id"] != f.commenter.ID ||
			fmt.Sprint(emojiSet(rs[1:])) != fmt.Sprint(map[string]bool{"👍🏽": true, "🇫🇷": true}) || got["replies"].(float64) != 1 {
			t.Fatalf("reactions: %v", rs)
		}
		if n := s.Client().CommentReaction.Query().Where(commentreaction.SubjectID(id1)).CountX(ctx); n != 4 {
			t.Fatalf("stored reactions: %d", n)
		}
		// Removing takes back only the caller's own.
		got = s.Call(t, "updateCommentInChangeRequest", f.editor.Token, "PUT", crp+"/comments/"+id1, map[string]any{"removedReactions": []string{"1f1eb-1f1f7", "👍"}}, 200).JSON(t)
		if rs := got["reactions"].([]any); len(rs) != 2 || rs[0].(map[string]any)["count"].(float64) != 1 {
			t.Fatalf("after removing: %v", rs)
		}

		// Resolve, and the lists' filters.
		res := s.Call(t, "updateCommentInChangeRequest", f.commenter.Token, "PUT", crp+"/comments/"+id1, map[string]any{"resolved": true}, 200).JSON(t)
		if res["status"] != "resolved" || res["resolvedBy"].(map[string]any)["id"] != f.commenter.ID || res["resolvedAt"] == nil || res["editedAt"] != nil {
			t.Fatalf("resolved: %v", res)
		}
		list := func(query string) []string {
			t.Helper()
			return commentIDs(s.Call(t, "listCommentsInChangeRequest", f.reader.Token, "GET", crp+"/comments"+query, nil, 200).JSON(t)["items"].([]any))
		}
		for q, want := range map[string][]string{
			"":                           {id2, id1},
			"?order=asc":                 {id1, id2},
			"?status=open":               {id2},
			"?status=resolved":           {id1},
			"?status=all":                {id2, id1},
			"?targetPage=" + f.guide:     {id1},
			"?authors=" + f.commenter.ID: {id2},
			"?authors=" + url.QueryEscape(f.commenter.ID+","+f.editor.ID): {id2, id1},
		} {
			if got := list(q); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("list %q: %v, want %v", q, got, want)
			}
		}
		// Scope: the space's list and count hold only its own comment.
		if got := commentIDs(s.Call(t, "listCommentsInSpace", f.reader.Token, "GET", sp+"/comments", nil, 200).JSON(t)["items"].([]any)); fmt.Sprint(got) != fmt.Sprint([]string{onOld["id"].(string)}) {
			t.Fatalf("space list: %v", got)
		}
		if n := s.Call(t, "getSpaceById", f.reader.Token, "GET", sp, nil, 200).JSON(t)["comments"].(float64); n != 1 {
			t.Fatalf("space count: %v", n)
		}
		if n := s.Call(t, "getChangeRequestById", f.reader.Token, "GET", crp, nil, 200).JSON(t)["comments"].(float64); n != 1 {
			t.Fatalf("change request count: %v", n)
		}
		// Reopen, then resolve again.
		if got := s.Call(t, "updateCommentInChangeRequest", f.editor.Token, "PUT", crp+"/comments/"+id1, map[string]any{"resolved": false}, 200).JSON(t); got["status"] != "open" || got["resolvedBy"] != nil {
			t.Fatalf("reopened: %v", got)
		}
		s.Call(t, "updateCommentInChangeRequest", f.editor.Token, "PUT", crp+"/comments/"+id1, map[string]any{"resolved": true, "body": md("Reword _this_.")}, 200)
		c := s.Client().Comment.GetX(ctx, id1)
		if c.Status != comment.StatusResolved || c.Body != "Reword _this_." || c.EditedAt == nil {
			t.Fatalf("stored: %+v", c)
		}

		// Commenters: the users who posted here, as members.
		var commenters []string
		for _, m := range s.Call(t, "listCommentersInChangeRequest", f.reader.Token, "GET", crp+"/commenters", nil, 200).JSON(t)["items"].([]any) {
			commenters = append(commenters, m.(map[string]any)["id"].(string)+":"+fmt.Sprint(m.(map[string]any)["role"]))
		}
		if fmt.Sprint(commenters) != fmt.Sprint([]string{f.editor.ID + ":edit", f.commenter.ID + ":comment"}) {
			t.Fatalf("commenters: %v", commenters)
		}

		// Merge: the page target is still readable, from the space's content;
		// the space comment on the page the merge deleted is outdated.
		f.merge(t, cr, 200)
		after := s.Call(t, "getCommentInChangeRequest", f.editor.Token, "GET", crp+"/comments/"+id1, nil, 200).JSON(t)
		if p := after["target"].(map[string]any)["page"].(map[string]any); p["title"] != "Guide" || p["outdated"] != false {
			t.Fatalf("after merge: %v", p)
		}
		if p := after["permissions"].(map[string]any); p["reply"] != false || p["edit"] != false || p["delete"] != true {
			t.Fatalf("permissions in a merged change request: %v", p)
		}
		old := s.Call(t, "getCommentInSpace", f.reader.Token, "GET", sp+"/comments/"+onOld["id"].(string), nil, 200).JSON(t)
		if p := old["target"].(map[string]any)["page"].(map[string]any); p["title"] != "Old" || p["path"] != "old" || p["outdated"] != true {
			t.Fatalf("deleted page: %v", p)
		}
		msg := s.Fail(t, "postCommentInChangeRequest", f.editor.Token, "POST", crp+"/comments", map[string]any{"body": md("late")}, 409)
		if !strings.Contains(msg, "merged") {
			t.Fatalf("409: %s", msg)
		}

		// format=document, on a read and on a list.
		doc := s.Call(t, "getCommentInChangeRequest", f.reader.Token, "GET", crp+"/comments/"+id1+"?format=document", nil, 200).JSON(t)
		if d := doc["body"].(map[string]any)["document"].(map[string]any); d["object"] != "document" {
			t.Fatalf("document: %v", doc["body"])
		}
		rl := s.Call(t, "listCommentRepliesInChangeRequest", f.reader.Token, "GET", crp+"/comments/"+id1+"/replies?format=document", nil, 200).JSON(t)
		if items := rl["items"].([]any); len(items) != 1 || items[0].(map[string]any)["body"].(map[string]any)["document"] == nil {
			t.Fatalf("replies: %v", rl)
		}

		// Deleting the comment deletes its reply and their reactions.
		s.Call(t, "deleteCommentInChangeRequest", f.editor.Token, "DELETE", crp+"/comments/"+id1, nil, 205)
		if n := s.Client().CommentReply.Query().Where(commentreply.CommentID(id1)).CountX(ctx); n != 0 {
			t.Fatalf("replies left: %d", n)
		}
		if n := s.Client().CommentReaction.Query().Where(commentreaction.SubjectID(id1)).CountX(ctx); n != 0 {
			t.Fatalf("reactions left: %d", n)
		}
		s.Fail(t, "getCommentInChangeRequest", f.reader.Token, "GET", crp+"/comments/"+id1, nil, 404)
	})
}

// TestCommentRepliesInSpace: a reply's own operations in a locked space, a
// body sent as a document, and its author's edit.
func TestCommentRepliesInSpace(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newCommentFixture(t, s)
		sp := f.spacePath()
		// A locked space takes comments: they are not content edits.
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", sp, map[string]any{"editMode": "locked"}, 200)
		c := f.post(t, "postCommentInSpace", f.editor.Token, sp, map[string]any{"body": map[string]any{"document": map[string]any{
			"object": "document", "nodes": []any{map[string]any{"object": "block", "type": "paragraph", "nodes": []any{
				map[string]any{"object": "text", "leaves": []any{map[string]any{"object": "leaf", "text": "From a document", "marks": []any{map[string]any{"object": "mark", "type": "bold"}}}}}}}}}}})
		if c["body"].(map[string]any)["markdown"] != "**From a document**\n" {
			t.Fatalf("document body: %v", c["body"])
		}
		base := sp + "/comments/" + c["id"].(string) + "/replies"
		r1 := s.Call(t, "postCommentReplyInSpace", f.commenter.Token, "POST", base, map[string]any{"body": md("one")}, 200).JSON(t)
		r2 := s.Call(t, "postCommentReplyInSpace", f.editor.Token, "POST", base, map[string]any{"body": md("two")}, 200).JSON(t)
		got := commentIDs(s.Call(t, "listCommentRepliesInSpace", f.reader.Token, "GET", base, nil, 200).JSON(t)["items"].([]any))
		if fmt.Sprint(got) != fmt.Sprint([]string{r1["id"].(string), r2["id"].(string)}) {
			t.Fatalf("replies oldest first: %v", got)
		}
		one := base + "/" + r1["id"].(string)
		ed := s.Call(t, "updateCommentReplyInSpace", f.commenter.Token, "PUT", one, map[string]any{"body": md("one, edited"), "addedReactions": []string{"2764-fe0f"}}, 200).JSON(t)
		if ed["editedAt"] == nil || ed["body"].(map[string]any)["markdown"] != "one, edited" || len(ed["reactions"].([]any)) != 1 {
			t.Fatalf("edited reply: %v", ed)
		}
		if g := s.Call(t, "getCommentReplyInSpace", f.reader.Token, "GET", one, nil, 200).JSON(t); g["body"].(map[string]any)["markdown"] != "one, edited" {
			t.Fatalf("read: %v", g)
		}
		if g := s.Call(t, "getCommentInSpace", f.reader.Token, "GET", sp+"/comments/"+c["id"].(string), nil, 200).JSON(t); g["replies"].(float64) != 2 {
			t.Fatalf("replies count: %v", g["replies"])
		}
		// An admin of the space deletes another user's reply.
		s.Call(t, "deleteCommentReplyInSpace", f.admin.Token, "DELETE", one, nil, 205)
		if s.Client().CommentReply.Query().Where(commentreply.ID(r1["id"].(string))).ExistX(ctx) {
			t.Fatal("reply not deleted")
		}
		var who []string
		for _, m := range s.Call(t, "listCommentersInSpace", f.reader.Token, "GET", sp+"/commenters", nil, 200).JSON(t)["items"].([]any) {
			who = append(who, m.(map[string]any)["id"].(string))
		}
		if fmt.Sprint(who) != fmt.Sprint([]string{f.editor.ID}) {
			t.Fatalf("commenters after the delete: %v", who)
		}
	})
}

// TestCommentCountsUnderConcurrency: 30 posts and 10 deletes, all at once,
// leave the space's and the change request's counts exact.
func TestCommentCountsUnderConcurrency(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newCommentFixture(t, s)
		for _, prefix := range []string{f.spacePath(), f.crPath(f.newCR(t, "busy"))} {
			doomed := make([]string, 10)
			for i := range doomed {
				doomed[i] = f.post(t, opIn(prefix, "postComment"), f.commenter.Token, prefix, map[string]any{"body": md("doomed")})["id"].(string)
			}
			var wg sync.WaitGroup
			for i := 0; i < 30; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := s.Request(t, f.commenter.Token, "POST", prefix+"/comments", map[string]any{"body": md(fmt.Sprint("comment ", i)), "page": f.guide})
					if r.Status != 200 {
						t.Errorf("post: %d %s", r.Status, r.Body)
					}
				}()
			}
			for _, id := range doomed {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if r := s.Request(t, f.commenter.Token, "DELETE", prefix+"/comments/"+id, nil); r.Status != 205 {
						t.Errorf("delete: %d %s", r.Status, r.Body)
					}
				}()
			}
			wg.Wait()
			get := "getSpaceById"
			if strings.Contains(prefix, "/change-requests/") {
				get = "getChangeRequestById"
			}
			if n := s.Call(t, get, f.reader.Token, "GET", prefix, nil, 200).JSON(t)["comments"].(float64); n != 30 {
				t.Fatalf("%s: comments = %v, want 30", prefix, n)
			}
			if n := s.Call(t, opIn(prefix, "listComments"), f.reader.Token, "GET", prefix+"/comments?status=open", nil, 200).JSON(t)["count"].(float64); n != 30 {
				t.Fatalf("%s: listed = %v, want 30", prefix, n)
			}
		}
	})
}

// opIn is the operation id of a comment operation under a space's or a
// change request's path.
func opIn(prefix, op string) string {
	if strings.Contains(prefix, "/change-requests/") {
		return op + "InChangeRequest"
	}
	return op + "InSpace"
}

// TestCommentRefusals: bad input and access on every operation, under a
// space and under a change request; none changes anything.
func TestCommentRefusals(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newCommentFixture(t, s)
		cr := f.newCR(t, "open")
		merged := f.newCR(t, "merged")
		mine := map[string]string{} // by prefix: the editor's comment and the commenter's reply
		replies := map[string]string{}
		prefixes := map[string]string{"InSpace": f.spacePath(), "InChangeRequest": f.crPath(cr)}
		for kind, p := range prefixes {
			c := f.post(t, "postComment"+kind, f.editor.Token, p, map[string]any{"body": md("mine")})
			mine[kind] = p + "/comments/" + c["id"].(string)
			replies[kind] = mine[kind] + "/replies/" + s.Call(t, "postCommentReply"+kind, f.commenter.Token, "POST", mine[kind]+"/replies", map[string]any{"body": md("reply")}, 200).JSON(t)["id"].(string)
		}
		mergedComment := f.post(t, "postCommentInChangeRequest", f.editor.Token, f.crPath(merged), map[string]any{"body": md("before")})["id"].(string)
		f.merge(t, merged, 200)
		spaceComment := mine["InSpace"][strings.LastIndex(mine["InSpace"], "/")+1:]

		type refusal struct {
			op, token, method, path string
			body                    any
			status                  int
			field                   string // in the message, for 400s
		}
		var cases []refusal
		for kind, p := range prefixes {
			c, rp := mine[kind], replies[kind]
			cases = append(cases,
				// posts
				refusal{"postComment" + kind, f.editor.Token, "POST", p + "/comments", map[string]any{}, 400, "body"},
				refusal{"postComment" + kind, f.editor.Token, "POST", p + "/comments", map[string]any{"body": map[string]any{}}, 400, "body"},
				refusal{"postComment" + kind, f.editor.Token, "POST", p + "/comments", map[string]any{"body": md("  \n")}, 400, "body"},
				refusal{"postComment" + kind, f.editor.Token, "POST", p + "/comments", map[string]any{"body": md("x"), "page": "nope"}, 400, "page"},
				refusal{"postComment" + kind, f.editor.Token, "POST", p + "/comments", map[string]any{"body": md("x"), "node": "k"}, 400, "node"},
				refusal{"postComment" + kind, f.editor.Token, "POST", p + "/comments", map[string]any{"body": md("x"), "page": f.guide, "node": "nope"}, 400, "node"},
				refusal{"postComment" + kind, f.editor.Token, "POST", p + "/comments", map[string]any{"body": md(strings.Repeat("> ", 40) + "deep")}, 400, "body"},
				refusal{"postComment" + kind, f.reader.Token, "POST", p + "/comments", map[string]any{"body": md("x")}, 403, ""},
				refusal{"postComment" + kind, f.stranger.Token, "POST", p + "/comments", map[string]any{"body": md("x")}, 404, ""},
				// reads
				refusal{"listComments" + kind, f.stranger.Token, "GET", p + "/comments", nil, 404, ""},
				refusal{"listComments" + kind, f.reader.Token, "GET", p + "/comments?status=closed", nil, 400, "status"},
				refusal{"listComments" + kind, f.reader.Token, "GET", p + "/comments?format=html", nil, 400, "format"},
				refusal{"getComment" + kind, f.stranger.Token, "GET", c, nil, 404, ""},
				refusal{"getComment" + kind, f.reader.Token, "GET", p + "/comments/nope", nil, 404, ""},
				refusal{"listCommentReplies" + kind, f.stranger.Token, "GET", c + "/replies", nil, 404, ""},
				refusal{"listCommentReplies" + kind, f.reader.Token, "GET", c + "/replies?limit=0", nil, 400, "limit"},
				refusal{"getCommentReply" + kind, f.stranger.Token, "GET", rp, nil, 404, ""},
				refusal{"getCommentReply" + kind, f.reader.Token, "GET", c + "/replies/nope", nil, 404, ""},
				refusal{"listCommenters" + kind, f.stranger.Token, "GET", p + "/commenters", nil, 404, ""},
				refusal{"listCommenters" + kind, f.reader.Token, "GET", p + "/commenters?limit=0", nil, 400, "limit"},
				refusal{"listCommenters" + kind, f.reader.Token, "GET", p + "/commenters?page=nope", nil, 400, "page"},
				// updates
				refusal{"updateComment" + kind, f.commenter.Token, "PUT", c, map[string]any{"body": md("not yours"), "addedReactions": []string{"👍"}, "resolved": true}, 403, ""},
				refusal{"updateComment" + kind, f.editor.Token, "PUT", c, map[string]any{"addedReactions": []string{"👍", "not an emoji"}}, 400, "addedReactions[1]"},
				refusal{"updateComment" + kind, f.editor.Token, "PUT", c, map[string]any{"removedReactions": []string{"1f44d-zz"}}, 400, "removedReactions[0]"},
				refusal{"updateComment" + kind, f.editor.Token, "PUT", c, map[string]any{"resolved": "yes"}, 400, "resolved"},
				refusal{"updateComment" + kind, f.editor.Token, "PUT", c, map[string]any{"body": md("")}, 400, "body"},
				refusal{"updateComment" + kind, f.reader.Token, "PUT", c, map[string]any{"resolved": true}, 403, ""},
				refusal{"updateComment" + kind, f.stranger.Token, "PUT", c, map[string]any{"resolved": true}, 404, ""},
				refusal{"updateCommentReply" + kind, f.editor.Token, "PUT", rp, map[string]any{"body": md("not yours")}, 403, ""},
				refusal{"updateCommentReply" + kind, f.commenter.Token, "PUT", rp, map[string]any{"addedReactions": []string{"abc"}}, 400, "addedReactions[0]"},
				refusal{"updateCommentReply" + kind, f.reader.Token, "PUT", rp, map[string]any{"addedReactions": []string{"👍"}}, 403, ""},
				refusal{"updateCommentReply" + kind, f.stranger.Token, "PUT", rp, map[string]any{"addedReactions": []string{"👍"}}, 404, ""},
				refusal{"postCommentReply" + kind, f.commenter.Token, "POST", c + "/replies", map[string]any{"body": md("")}, 400, "body"},
				refusal{"postCommentReply" + kind, f.reader.Token, "POST", c + "/replies", map[string]any{"body": md("x")}, 403, ""},
				refusal{"postCommentReply" + kind, f.stranger.Token, "POST", c + "/replies", map[string]any{"body": md("x")}, 404, ""},
				// deletes
				refusal{"deleteComment" + kind, f.commenter.Token, "DELETE", c, nil, 403, ""},
				refusal{"deleteComment" + kind, f.stranger.Token, "DELETE", c, nil, 404, ""},
				refusal{"deleteCommentReply" + kind, f.editor.Token, "DELETE", rp, nil, 403, ""},
				refusal{"deleteCommentReply" + kind, f.stranger.Token, "DELETE", rp, nil, 404, ""},
			)
		}
		mp := f.crPath(merged)
		cases = append(cases,
			// A comment is found only in its own scope.
			refusal{"getCommentInChangeRequest", f.reader.Token, "GET", f.crPath(cr) + "/comments/" + spaceComment, nil, 404, ""},
			refusal{"getCommentInSpace", f.reader.Token, "GET", f.spacePath() + "/comments/" + mergedComment, nil, 404, ""},
			// A merged change request's comments are read-only.
			refusal{"postCommentInChangeRequest", f.editor.Token, "POST", mp + "/comments", map[string]any{"body": md("x")}, 409, ""},
			refusal{"postCommentReplyInChangeRequest", f.editor.Token, "POST", mp + "/comments/" + mergedComment + "/replies", map[string]any{"body": md("x")}, 409, ""},
			refusal{"updateCommentInChangeRequest", f.editor.Token, "PUT", mp + "/comments/" + mergedComment, map[string]any{"resolved": true}, 409, ""},
		)
		// Reading the page's document stores its derived data, a cache the
		// unknown-node check would otherwise fill during the refusals.
		f.blockKey(t, "getPageById", f.spacePath(), f.guide, 0)
		before := s.Snapshot(t)
		for _, c := range cases {
			msg := s.Fail(t, c.op, c.token, c.method, c.path, c.body, c.status)
			if c.field != "" && !strings.Contains(msg, c.field) {
				t.Errorf("%s %s %v: message %q does not name %s", c.op, c.path, c.body, msg, c.field)
			}
		}
		s.Unchanged(t, before)
	})
}

// TestCommentersWhoLeft: a commenter who left the organization is still
// listed, as a member without a role; their comment stays readable.
func TestCommentersWhoLeft(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newCommentFixture(t, s)
		sp := f.spacePath()
		c := f.post(t, "postCommentInSpace", f.commenter.Token, sp, map[string]any{"body": md("bye")})
		s.Call(t, "removeMemberFromOrganizationById", f.admin.Token, "DELETE", "/v1/orgs/"+f.org+"/members/"+f.commenter.ID, nil, 204)
		items := s.Call(t, "listCommentersInSpace", f.reader.Token, "GET", sp+"/commenters", nil, 200).JSON(t)["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("commenters: %v", items)
		}
		m := items[0].(map[string]any)
		if m["id"] != f.commenter.ID || m["role"] != nil || m["user"].(map[string]any)["displayName"] != "commenter" {
			t.Fatalf("commenter who left: %v", m)
		}
		got := s.Call(t, "getCommentInSpace", f.reader.Token, "GET", sp+"/comments/"+c["id"].(string), nil, 200).JSON(t)
		if got["postedBy"].(map[string]any)["id"] != f.commenter.ID {
			t.Fatalf("comment of a user who left: %v", got)
		}
	})
}

// TestCommentListStatementCount: a REST page of 50 comments, each with
// reactions and replies, costs the statements of a page of 5.
func TestCommentListStatementCount(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newCommentFixture(t, s)
		users := []testkit.User{f.editor, f.commenter, f.admin}
		count := func(n int) int64 {
			sp := f.createSpace(t, map[string]any{"title": fmt.Sprint("S", n)})["id"].(string)
			for i := 0; i < n; i++ {
				cm := s.Client().Comment.Create().SetSpaceID(sp).SetBody("c").SetPostedBy(users[i%3].ID).SaveX(testkit.Fixture(context.Background()))
				s.Client().CommentReply.Create().SetCommentID(cm.ID).SetSpaceID(sp).SetBody("r").SetPostedBy(users[(i+1)%3].ID).ExecX(testkit.Fixture(context.Background()))
				s.Client().CommentReaction.Create().SetSubjectID(cm.ID).SetSpaceID(sp).SetEmoji("👍").SetUserID(users[(i+2)%3].ID).
					SetCreatedAt(cm.CreatedAt).ExecX(testkit.Fixture(context.Background()))
			}
			before := s.Statements()
			if got := s.Call(t, "listCommentsInSpace", f.reader.Token, "GET", "/v1/spaces/"+sp+"/comments?limit=50", nil, 200).JSON(t)["items"].([]any); len(got) != n {
				t.Fatalf("%d comments listed, want %d", len(got), n)
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
