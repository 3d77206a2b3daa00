// Command folio is the Folio server and its administration commands.
//
//	folio [serve]                                          run the server (default)
//	folio token create --email E [--name N] [--org TITLE]  print a new API token
//	folio migrate                                          migrate the schema and exit
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/db"
)

func main() {
	// Every log line of the process, slog's and the log package's, is JSON
	// with the request id; command-line messages below are not log lines.
	slog.SetDefault(logger())
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "folio:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args)
	case "migrate":
		return migrate(args)
	case "token":
		if len(args) == 0 || args[0] != "create" {
			return fmt.Errorf("usage: folio token create --email E [--name N] [--org TITLE]")
		}
		return tokenCreate(args[1:])
	case "help", "-h", "--help":
		fmt.Println("usage: folio [serve | migrate | token create --email E [--name N] [--org TITLE]]")
		return nil
	}
	return fmt.Errorf("unknown command %q (serve, migrate, token create)", cmd)
}

// open parses the shared flags and opens the database (migrating it).
func open(ctx context.Context, name string, args []string, extra func(*flag.FlagSet)) (*app.App, error) {
	cfg := app.FromEnv()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	cfg.Flags(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	a, err := app.New(cfg, d, logger())
	if err != nil {
		d.Client.Close()
		return nil, err
	}
	return a, nil
}

// logger is the process's one logger, so lines from the server, its
// requests and slog's default share one writer and never interleave.
var logger = sync.OnceValue(func() *slog.Logger { return app.NewLogger(os.Stderr) })

func serve(args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := open(ctx, "serve", args, nil)
	if err != nil {
		return err
	}
	defer a.DB.Client.Close()
	if err := a.Bootstrap(ctx, os.Stdout); err != nil {
		return fmt.Errorf("first start: %w", err)
	}
	return a.Serve(ctx, logger())
}

func migrate(args []string) error {
	a, err := open(context.Background(), "migrate", args, nil)
	if err != nil {
		return err
	}
	return a.DB.Client.Close()
}

func tokenCreate(args []string) error {
	var email, name, org string
	a, err := open(context.Background(), "token create", args, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "email of the user (created if needed)")
		fs.StringVar(&name, "name", "", "display name of a new user")
		fs.StringVar(&org, "org", "", "also create an organization with this title, the user as admin")
	})
	if err != nil {
		return err
	}
	defer a.DB.Client.Close()
	if email == "" {
		return fmt.Errorf("token create: --email is required")
	}
	token, _, err := a.IssueToken(context.Background(), email, name, org)
	if err != nil {
		return err
	}
	fmt.Println(token)
	return nil
}
