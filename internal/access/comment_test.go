package access

import "testing"

func TestCommentPermissionsFor(t *testing.T) {
	read, comment, admin := Read, Comment, Admin
	for _, c := range []struct {
		name     string
		role     *Role
		author   bool
		writable bool
		want     CommentPermissions
	}{
		{"stranger", nil, false, true, CommentPermissions{}},
		{"reader", &read, false, true, CommentPermissions{View: true}},
		{"reader who wrote it before losing the role", &read, true, true, CommentPermissions{View: true}},
		{"commenter", &comment, false, true, CommentPermissions{View: true, Reply: true}},
		{"author", &comment, true, true, CommentPermissions{View: true, Edit: true, Reply: true, Delete: true}},
		{"author in a merged change request", &comment, true, false, CommentPermissions{View: true, Delete: true}},
		{"admin", &admin, false, true, CommentPermissions{View: true, Reply: true, Delete: true}},
	} {
		if got := CommentPermissionsFor(c.role, c.author, c.writable); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}
