package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
)

// PasskeyCeremony is the server's half of a WebAuthn ceremony between its
// two requests (the options, then the authenticator's answer), and the
// pending second factor of a password sign-in: kept in the database so
// that any instance can finish what another began. The browser holds a
// random secret in a short-lived cookie; only its SHA-256 is stored. A
// ceremony is used once (finishing deletes it) and expires in minutes.
type PasskeyCeremony struct{ ent.Schema }

func (PasskeyCeremony) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (PasskeyCeremony) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").Unique().Immutable().Sensitive(),
		// register: adding a passkey (user_id: the signed-in user);
		// login: a sign-in with a passkey alone (no user until it answers);
		// second_factor: a password checked, waiting for user_id's passkey.
		field.Enum("kind").Values("register", "login", "second_factor").Immutable(),
		field.String("user_id").Optional().Immutable(),
		// go-webauthn's SessionData as JSON (the challenge and what the
		// answer must match); null until a second factor's options are
		// asked for.
		field.JSON("session_data", json.RawMessage{}).Optional(),
		field.Time("created_at").Default(clock.Now).Immutable(),
		field.Time("expires_at").Immutable(),
	}
}

func (PasskeyCeremony) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("expires_at"),
	}
}
