package rest

import (
	"time"

	"github.com/folio/folio/ent"
)

// timestamp writes times as RFC 3339 in UTC with milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

type urlsLocation struct {
	Location string `json:"location"`
}

// userJSON is GitBook's embedded user object.
type userJSON struct {
	Object      string       `json:"object"`
	ID          string       `json:"id"`
	DisplayName string       `json:"displayName"`
	Email       string       `json:"email,omitempty"`
	PhotoURL    *string      `json:"photoURL,omitempty"`
	URLs        urlsLocation `json:"urls"`
}

func (a *API) presentUser(u *ent.User) userJSON {
	return userJSON{
		Object:      "user",
		ID:          u.ID,
		DisplayName: u.DisplayName,
		Email:       u.Email,
		PhotoURL:    u.PhotoURL,
		URLs:        urlsLocation{Location: a.res.BaseURL + "/v1/users/" + u.ID},
	}
}
