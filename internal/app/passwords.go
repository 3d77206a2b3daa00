package app

import (
	"context"
)

// SetPassword sets the password of the user with email, creating the user
// if needed (`folio user password`): the operator's way to make a local
// account that signs in at /sign-in.
func (a *App) SetPassword(ctx context.Context, email, password string) error {
	_, err := a.Resolver.SetPassword(CommandLine(ctx), email, password)
	return err
}
