package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// User is a person who calls the API with one or more API tokens.
type User struct{ ent.Schema }

func (User) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (User) Fields() []ent.Field {
	return []ent.Field{
		// Stored lower-cased so lookups by email are exact on both databases.
		field.String("email").Unique().Validate(length(3, 320)),
		field.String("display_name").Validate(length(1, 255)),
		field.String("photo_url").Optional().Nillable().Validate(length(0, 2048)),
		// Whether the user proved the address is theirs (joinOrganization
		// needs it). New rows start false; users an admin or the command
		// line creates, and invitations accepted, set it. The column's
		// database default is true so that the rows that existed before
		// it (all made by admins or the CLI) count as verified.
		field.Bool("email_verified").Default(false).
			Annotations(entsql.DefaultExpr("true")),
		// Local sign-in: argon2id in PHC form (internal/auth/password.go); nil
		// when the user has no password.
		field.String("password_hash").Optional().Nillable().Sensitive(),
		// Sign-in with the password asks for one of the user's passkeys
		// too before a session opens (graph/passkeys_signin.go).
		field.Bool("passkey_required").Default(false),
	}
}

func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("tokens", APIToken.Type),
		edge.To("memberships", Member.Type),
		edge.To("team_memberships", TeamMember.Type),
		edge.To("sessions", Session.Type),
		edge.To("email_tokens", EmailToken.Type),
		edge.To("identities", UserIdentity.Type),
		edge.To("passkeys", Passkey.Type),
	}
}
