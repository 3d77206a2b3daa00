// Package model holds the GraphQL types that are not ent entities.
package model

import "github.com/folio/folio/ent"

// Node is any object with an ID. ent entities satisfy it as they are, so the
// generated code needs no marker methods on ent types.
type Node interface{}

// Viewer is the authenticated user.
type Viewer struct {
	User *ent.User
}

// OrganizationURLs are the `urls` of an organization.
type OrganizationURLs struct {
	Location string  `json:"location"`
	App      string  `json:"app"`
	Logo     *string `json:"logo,omitempty"`
}
