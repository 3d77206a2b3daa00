package schema

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/fetch"
)

// SAMLProvider is a SAML identity provider members of an organization sign
// in through. ssoURL, entityID and certificate describe the identity
// provider; a provider with all three is `active`, otherwise `pending`.
type SAMLProvider struct{ ent.Schema }

func (SAMLProvider) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (SAMLProvider) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("label").Validate(length(1, 30)),
		field.String("sso_url").Optional().Nillable().Validate(all(length(0, 2048), fetch.CheckURL)),
		field.String("entity_id").Optional().Nillable().Validate(length(0, 1024)),
		field.Text("certificate").Optional().Nillable().Validate(all(length(0, 10000), pemCertificates)),
		field.String("default_team_id").Optional().Nillable(),
		field.Enum("default_role").GoType(access.Role("")).Optional().Nillable(),
	}
}

func (SAMLProvider) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("saml_providers").Field("organization_id").Unique().Required().Immutable(),
		edge.From("default_team", Team.Type).Ref("saml_providers").Field("default_team_id").Unique(),
	}
}

func (SAMLProvider) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "created_at", "id")}
}

// pemCertificates accepts one or more PEM "CERTIFICATE" blocks (a chain),
// each a parseable X.509 certificate, with nothing but blank space around
// them. Expiry is not checked: identity providers often sign with
// long-expired self-signed certificates, and SAML trusts the key, not the
// dates.
func pemCertificates(s string) error {
	rest := bytes.TrimSpace([]byte(s))
	if !bytes.HasPrefix(rest, []byte("-----BEGIN ")) {
		return errors.New("must be a PEM-encoded X.509 certificate starting with -----BEGIN CERTIFICATE-----")
	}
	for n := 1; len(rest) > 0; n++ {
		if !bytes.HasPrefix(rest, []byte("-----BEGIN ")) {
			return fmt.Errorf("has text that is not a PEM block after certificate %d", n-1)
		}
		block, after := pem.Decode(rest)
		if block == nil {
			return fmt.Errorf("is not valid PEM (block %d could not be decoded)", n)
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("must hold X.509 certificates only, not a PEM %q block", block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("is not a valid X.509 certificate (block %d): %v", n, strings.TrimPrefix(err.Error(), "x509: "))
		}
		rest = bytes.TrimSpace(after)
	}
	return nil
}
