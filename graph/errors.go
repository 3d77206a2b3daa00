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

// jsonName converts an ent field name (email_domains, sso_url) to its JSON
// and GraphQL name (emailDomains, ssoURL): words after the first are
// capitalised, and the initialisms ID and URL are written in capitals.
func jsonName(field string) string {
	words := strings.Split(field, "_")
	for i := 1; i < len(words); i++ {
		switch w := words[i]; w {
		case "id", "url":
			words[i] = strings.ToUpper(w)
		default:
			if w != "" {
				r := []rune(w)
				r[0] = unicode.ToUpper(r[0])
				words[i] = string(r)
			}
		}
	}
	return strings.Join(words, "")
}
