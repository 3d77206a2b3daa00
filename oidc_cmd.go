package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/app"
)

const oidcUsage = "usage: folio oidc add --name N --issuer URL --client-id ID [--label L] [--allowed-domains D,…] [--organization ORG --role R] (the client secret on stdin) | folio oidc list | folio oidc remove --name N"

// oidc runs `folio oidc add|list|remove`: the instance's OpenID Connect
// providers (graph/oidcproviders.go).
func (c cli) oidc(args []string) error {
	if len(args) == 0 {
		return usageError{errors.New(oidcUsage), "folio oidc add"}
	}
	switch args[0] {
	case "add":
		return c.oidcAdd(args[1:])
	case "list":
		return c.oidcList(args[1:])
	case "remove":
		return c.oidcRemove(args[1:])
	}
	return usageError{fmt.Errorf("unknown command %q\n%s", "oidc "+args[0], oidcUsage), "folio oidc add"}
}

// oidcAdd stores a provider; its client secret is the first line of stdin
// (a flag would show in ps and shell history).
func (c cli) oidcAdd(args []string) error {
	var in graph.OIDCProviderInput
	var domains string
	cfg, err := c.settings("oidc add", args, func(fs *flag.FlagSet) {
		fs.StringVar(&in.Name, "name", "", "the provider's name in addresses (/sso/oidc/NAME/…): lower-case letters, digits, hyphens; required")
		fs.StringVar(&in.Label, "label", "", `what the sign-in button says after "Sign in with" (default: the name)`)
		fs.StringVar(&in.Issuer, "issuer", "", "the provider's issuer URL (discovery at ISSUER/.well-known/openid-configuration); required")
		fs.StringVar(&in.ClientID, "client-id", "", "the client id Folio got from the provider; required")
		fs.StringVar(&domains, "allowed-domains", "", "comma-separated email domains that may sign in (default: any)")
		fs.StringVar(&in.OrganizationID, "organization", "", "the id of an organization everyone signing in through the provider joins (default: none)")
		fs.StringVar(&in.Role, "role", "", "the role they join --organization with (default: read)")
	})
	if err != nil {
		return err
	}
	for _, f := range []struct{ flag, value string }{{"name", in.Name}, {"issuer", in.Issuer}, {"client-id", in.ClientID}} {
		if f.value == "" {
			return usageError{fmt.Errorf("oidc add: --%s is required", f.flag), "folio oidc add"}
		}
	}
	if domains != "" {
		in.AllowedDomains = strings.Split(domains, ",")
	}
	line, err := bufio.NewReader(io.LimitReader(c.stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read the client secret from stdin: %w", err)
	}
	in.ClientSecret = strings.TrimRight(line, "\r\n")
	if in.ClientSecret == "" {
		return usageError{errors.New("oidc add: write the client secret on stdin (echo or a pipe; one line)"), "folio oidc add"}
	}
	ctx := app.CommandLine(context.Background())
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.DB.Client.Close()
	p, err := a.AddOIDCProvider(ctx, in)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "folio: added OpenID Connect provider %s (%s) in %s\n", p.Name, p.Issuer, cfg.DatabaseLocation())
	fmt.Fprintf(c.stderr, "folio: register this redirect URI at the provider: %s\n", a.Resolver.OIDCRedirectURI(p.Name))
	return nil
}

// oidcList prints one provider a line on stdout: name, label, issuer,
// client id, allowed domains, redirect URI, then the organization and role
// its users join ("-" for none) (tab-separated; never the secret).
func (c cli) oidcList(args []string) error {
	cfg, err := c.settings("oidc list", args, nil)
	if err != nil {
		return err
	}
	ctx := app.CommandLine(context.Background())
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.DB.Client.Close()
	ps, err := a.OIDCProviders(ctx)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		fmt.Fprintf(c.stderr, "folio: no OpenID Connect provider in %s (add one with folio oidc add)\n", cfg.DatabaseLocation())
		return nil
	}
	for _, p := range ps {
		domains := strings.Join(p.AllowedDomains, ",")
		if domains == "" {
			domains = "*"
		}
		joins := "-\t-"
		if p.OrganizationID != nil && p.DefaultRole != nil {
			joins = *p.OrganizationID + "\t" + string(*p.DefaultRole)
		}
		fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, p.Label, p.Issuer, p.ClientID, domains, a.Resolver.OIDCRedirectURI(p.Name), joins)
	}
	return nil
}

func (c cli) oidcRemove(args []string) error {
	var name string
	cfg, err := c.settings("oidc remove", args, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "the provider's name; required")
	})
	if err != nil {
		return err
	}
	if name == "" {
		return usageError{errors.New("oidc remove: --name is required"), "folio oidc remove"}
	}
	ctx := app.CommandLine(context.Background())
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.DB.Client.Close()
	if err := a.RemoveOIDCProvider(ctx, name); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "folio: removed OpenID Connect provider %s and its users' links to it; they keep their accounts\n", name)
	return nil
}
