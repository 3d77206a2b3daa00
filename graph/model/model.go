// Package model holds the GraphQL types that are not ent entities.
package model

import (
	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/access"
)

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

// SpaceURLs are the `urls` of a space.
type SpaceURLs struct {
	Location  string  `json:"location"`
	App       string  `json:"app"`
	Published *string `json:"published,omitempty"`
	Public    *string `json:"public,omitempty"`
}

// CollectionURLs are the `urls` of a collection.
type CollectionURLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
}

// MemberSpace is a space a member can access, with the member's role.
type MemberSpace struct {
	Permission access.Role `json:"permission"`
	Space      *ent.Space  `json:"space"`
}

// SpaceCustomFieldValue is a custom field with a space's value (nil: unset).
type SpaceCustomFieldValue struct {
	CustomField *ent.CustomField `json:"customField"`
	Value       any              `json:"value,omitempty"`
}
