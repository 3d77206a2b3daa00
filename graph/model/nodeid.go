package model

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Composite node ids. An object that exists only inside a parent (a page in
// a revision, a member in an organization, a search hit in a page) has no
// id of its own that is unique across the schema: the same page is in every
// revision that holds it, the same user in every organization. Normalized
// client caches (Apollo, urql, Relay) key objects by __typename and id, so
// such objects get an id naming the parent too: base64url (no padding) of
// the JSON array [type, part, …]. The type goes first, so the id tells
// node(id:) what it is without a statement; JSON keeps parts of any text
// (a search query, a document node id) apart.
//
// Every id Folio stores is 20 characters of [0-9a-z] (internal/ids), and a
// composite id starts with "WyJ" (the base64 of `["` and a letter), whose
// capitals no stored id has: the two kinds never meet.

// NodeID is the composite id of an object of GraphQL type typ inside the
// parents named by parts.
func NodeID(typ string, parts ...string) string {
	var encoded [192]byte
	return string(appendNodeID(encoded[:0], typ, parts...))
}

// appendNodeID appends NodeID(typ, parts...) to dst: a tree writes its
// pages' ids without a string each.
func appendNodeID(dst []byte, typ string, parts ...string) []byte {
	// Trees set an id on every page, so the usual case (parts JSON writes
	// as they are) builds the array by hand, on the stack; the bytes are
	// exactly json.Marshal's, which writes the rest.
	var stack [128]byte
	b := append(stack[:0], `["`...)
	b = append(b, typ...)
	for _, p := range parts {
		if !plainJSON(p) {
			b, _ = json.Marshal(append([]string{typ}, parts...)) // strings always marshal
			return base64.RawURLEncoding.AppendEncode(dst, b)
		}
		b = append(append(b, `","`...), p...)
	}
	return base64.RawURLEncoding.AppendEncode(dst, append(b, `"]`...))
}

// plainJSON says whether json.Marshal writes s between quotes unchanged:
// printable ASCII without quote, backslash or the characters it escapes
// for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// compositePrefix starts every composite id: the base64 of `["` followed
// by a type name's first letter.
const compositePrefix = "WyJ"

// ParseNodeID reads a composite id: its type and parts. ok is false for
// anything else (a stored id, or text that is no composite id).
func ParseNodeID(id string) (typ string, parts []string, ok bool) {
	if !strings.HasPrefix(id, compositePrefix) || len(id) > maxNodeIDLength {
		return "", nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return "", nil, false
	}
	var all []string
	if json.Unmarshal(b, &all) != nil || len(all) < 2 {
		return "", nil, false
	}
	return all[0], all[1:], true
}

// maxNodeIDLength bounds what ParseNodeID decodes: the longest composite id
// (a search section's, with a query of 512 characters that JSON escapes to
// six bytes each) is well under it.
const maxNodeIDLength = 8 << 10

// Composite id types: the GraphQL type names whose ids NodeID makes.
const (
	PageNode              = "Page"              // revision, page
	FileNode              = "File"              // revision, file
	MemberNode            = "Member"            // organization, user
	SearchSectionNode     = "SearchSection"     // revision, page, anchor, query
	SSOProviderLoginNode  = "SSOProviderLogin"  // organization, SAML provider
	CommentPageTargetNode = "CommentPageTarget" // space, comment, page
	CommentNodeTargetNode = "CommentNodeTarget" // space, comment, document node
	PublishedPageNode     = "PublishedPage"     // site, site space, revision, page
)

// PageNodeID is the id of page pageID as revision revisionID holds it.
func PageNodeID(revisionID, pageID string) string { return NodeID(PageNode, revisionID, pageID) }
