package app

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// CommandLine is ctx for the writes of a command (folio token create, the
// first start's bootstrap): their events say they came from a script, by
// the system's command line.
func CommandLine(ctx context.Context) context.Context {
	return events.WithOrigin(ctx, events.Origin{
		Source: events.SourceScript,
		Actor:  events.Actor{Type: events.ActorSystem, ID: "cli", Label: "folio command line"},
	})
}

// Bootstrap makes a first user, organization and token when the database
// has no user yet, and prints them with a curl line, so a newcomer can call
// the API within a minute of cloning. It does nothing on later starts.
func (a *App) Bootstrap(ctx context.Context, out io.Writer) error {
	n, err := a.DB.Client.User.Query().Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	const email, title = "admin@folio.localhost", "My Organization"
	token, org, err := a.IssueToken(ctx, email, "Admin", title)
	if err != nil {
		return err
	}
	base := a.Config.PublicBaseURL()
	fmt.Fprintf(out, `
Folio is ready. A first user, organization and API token were created:

  database:      %s
  user:          %s
  organization:  %s (%s)
  token:         %s

The token is shown only this once. Try it:

  curl -s -H "Authorization: Bearer %s" %s/v1/orgs/%s

GraphQL explorer: %s/graphql   (more tokens: folio token create --email you@example.com)

`, a.Config.DatabaseLocation(), email, title, org, token, token, base, org, base)
	if a.MadeKeyFile != "" {
		fmt.Fprintf(out, "The key that seals the secrets in the database is in %s:\nback it up apart from the database (README: \"Secrets at rest\").\n\n", a.MadeKeyFile)
	}
	return nil
}

// IssueToken creates the user with email if needed (and, when orgTitle is
// not empty, an organization with that user as admin) and returns a new API
// token and the organization's id.
func (a *App) IssueToken(ctx context.Context, email, name, orgTitle string) (token, orgID string, err error) {
	return a.IssueExpiringToken(ctx, email, name, orgTitle, 0)
}

// IssueExpiringToken is IssueToken for a token that expires after
// lifetime (0: never), as `folio token create --expires` asks.
func (a *App) IssueExpiringToken(ctx context.Context, email, name, orgTitle string, lifetime time.Duration) (token, orgID string, err error) {
	// Only the command line (and tests standing in for it) issues tokens
	// this way.
	ctx = CommandLine(ctx)
	u, err := a.Resolver.EnsureUser(ctx, email, name)
	if err != nil {
		return "", "", err
	}
	if orgTitle != "" {
		org, err := a.Resolver.CreateOrganization(ctx, u.ID, model.CreateOrganizationInput{Title: orgTitle})
		if err != nil {
			return "", "", err
		}
		orgID = org.ID
	}
	var expires *time.Time
	if lifetime > 0 {
		t := clock.Now().Add(lifetime)
		expires = &t
	}
	token, err = a.Resolver.CreateToken(ctx, u.ID, "cli", expires)
	return token, orgID, err
}
