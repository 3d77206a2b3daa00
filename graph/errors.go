package graph

import (
	"errors"
	"strings"
	"unicode"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/apperr"
)

// entError turns ent's validation and constraint errors into invalid-input
// and conflict errors naming the field in the API's spelling; anything else
// passes through (and is answered as internal).
func entError(err error) error {
	if err == nil {
		return nil
	}
	var ve *ent.ValidationError
	if errors.As(err, &ve) {
		// ent wraps the validator's own message twice; show only that.
		inner := error(ve)
		for next := errors.Unwrap(inner); next != nil; next = errors.Unwrap(inner) {
			inner = next
		}
		msg := inner.Error()
		return apperr.InvalidField(jsonName(ve.Name), "%s", msg)
	}
	if ent.IsNotFound(err) {
		return apperr.NotFoundf("not found")
	}
	return err
}

// jsonName converts an ent field name (email_domains) to its JSON and
// GraphQL name (emailDomains).
func jsonName(field string) string {
	var b strings.Builder
	up := false
	for _, r := range field {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
