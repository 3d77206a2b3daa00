package graph

import (
	"fmt"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/secrets"
)

// Secrets at rest: a secret column holds sealed text (internal/secrets);
// these open it for the code that signs, compares or shows the secret, and
// seal new values. A value that does not open is a server fault (a key that
// changed under a running server, a row edited by hand), never the caller's.

// SiteAuthKey is the key that signs site s's visitor tokens.
func (r *Resolver) SiteAuthKey(s *ent.Site) (string, error) {
	return r.openSecret(secrets.SiteAuthKey, s.ID, s.AuthPrivateKeySealed)
}

// SpaceShareKey is the share key of space s.
func (r *Resolver) SpaceShareKey(s *ent.Space) (string, error) {
	return r.openSecret(secrets.SpaceShareKey, s.ID, s.ShareKeySealed)
}

// ShareLinkKey is the key of share link l.
func (r *Resolver) ShareLinkKey(l *ent.SiteShareLink) (string, error) {
	return r.openSecret(secrets.ShareLinkKey, l.ID, l.KeySealed)
}

func (r *Resolver) openSecret(area, id, sealed string) (string, error) {
	v, err := r.Secrets.Open(area, sealed)
	if err != nil {
		return "", fmt.Errorf("open %s of %s: %w", area, id, err)
	}
	return v, nil
}

// seal is value sealed for area, to store.
func (r *Resolver) seal(area, value string) string { return r.Secrets.Seal(area, value) }
