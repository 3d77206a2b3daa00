// Command folio is the Folio server and its administration commands; `folio
// help` lists them and every setting (internal/app.Settings).
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/secrets"
)

func main() {
	// Every log line of the process, slog's and the log package's, is JSON
	// with the request id; command-line messages below are not log lines.
	slog.SetDefault(logger())
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// logger is the process's one logger, so lines from the server, its
// requests and slog's default share one writer and never interleave.
var logger = sync.OnceValue(func() *slog.Logger { return app.NewLogger(os.Stderr) })

// cli is one run of the command line. stdout carries only what a script
// reads (a token, the version, help asked for); everything said to the
// person at the terminal goes to stderr. stdin carries what must not be a
// flag (a password: flags show in ps and shell history).
type cli struct {
	stdout, stderr io.Writer
	stdin          io.Reader
}

// usageError is a command line or setting that is not valid: the process
// exits 2, as the flag package's own errors do.
type usageError struct {
	err  error
	help string // command whose --help to suggest
}

func (e usageError) Error() string { return e.err.Error() }

// errHelpShown ends a command whose help was asked for and printed.
var errHelpShown = errors.New("help shown")

// run runs the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runWithInput(args, os.Stdin, stdout, stderr)
}

// runWithInput is run reading stdin from in.
func runWithInput(args []string, in io.Reader, stdout, stderr io.Writer) int {
	c := cli{stdout: stdout, stderr: stderr, stdin: in}
	err := c.command(args)
	var usage usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.As(err, &usage):
		for line := range strings.SplitSeq(usage.Error(), "\n") {
			fmt.Fprintln(stderr, "folio:", line)
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", usage.help)
		return 2
	default:
		fmt.Fprintln(stderr, "folio:", err)
		return 1
	}
}

func (c cli) command(args []string) error {
	cmd := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd = "help" // the commands' list; `folio serve --help` is serve's
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return c.serve(args)
	case "migrate":
		return c.migrate(args)
	case "token":
		if len(args) == 0 || args[0] != "create" {
			return usageError{errors.New("usage: folio token create --email E [--name N] [--org TITLE]"), "folio token create"}
		}
		return c.tokenCreate(args[1:])
	case "user":
		if len(args) == 0 || args[0] != "password" {
			return usageError{errors.New("usage: folio user password --email E (the new password on stdin)"), "folio user password"}
		}
		return c.userPassword(args[1:])
	case "oidc":
		return c.oidc(args)
	case "backup":
		return c.backup(args)
	case "restore":
		return c.restore(args)
	case "secrets":
		if len(args) == 0 || args[0] != "rotate" {
			return usageError{errors.New("usage: folio secrets rotate [flags] (the new key in FOLIO_NEW_SECRET_KEY)"), "folio secrets rotate"}
		}
		return c.secretsRotate(args[1:])
	case "version":
		c.version()
		return nil
	case "help":
		c.help(c.stdout, "", nil)
		return nil
	}
	c.help(c.stderr, "", nil)
	return usageError{fmt.Errorf("unknown command %q", cmd), "folio"}
}

// settings reads the command's flags, then the environment for every
// setting no flag gave. A value that does not parse, from either, is a
// usage error naming the flag or the variable.
func (c cli) settings(name string, args []string, extra func(*flag.FlagSet)) (app.Config, error) {
	cfg := app.Defaults()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and help are printed below, once
	cfg.Flags(fs)
	if extra != nil {
		extra(fs)
	}
	command := strings.TrimSpace("folio " + name)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.help(c.stdout, name, fs)
			return cfg, errHelpShown
		}
		return cfg, usageError{err, command}
	}
	if fs.NArg() > 0 {
		return cfg, usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0)), command}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := cfg.ApplyEnv(os.Getenv, given); err != nil {
		return cfg, usageError{err, command}
	}
	for _, warning := range app.UnknownEnv(os.Environ()) {
		slog.Warn(warning, "command", command)
	}
	return cfg, nil
}

// open checks the data directory and opens the database (migrating it).
func open(ctx context.Context, cfg app.Config) (*app.App, error) {
	if err := cfg.PrepareDataDir(); err != nil {
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

func (c cli) serve(args []string) error {
	cfg, err := c.settings("serve", args, nil)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Bind first: a taken port stops the start before the database is
	// opened, so no database is created and no first user or token is made
	// (or printed) for a server that would never answer. The first-start
	// banner is printed only once the port is ours; requests that arrive
	// before Serve wait in the listen queue.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			err = op.Err
		}
		return fmt.Errorf("cannot listen on %s: %v (another server there? choose an address with FOLIO_ADDR or --addr)", cfg.Addr, err)
	}
	defer ln.Close()
	if _, port, _ := net.SplitHostPort(cfg.Addr); port == "0" {
		cfg.Addr = ln.Addr().String() // the port the system chose, for the banner and urls
	}
	var mln net.Listener
	if cfg.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			return fmt.Errorf("cannot listen on %s for metrics: %v (choose another with FOLIO_METRICS_ADDR or --metrics-addr)", cfg.MetricsAddr, err)
		}
		defer mln.Close()
	}
	// The port answers from here on: /healthz 200, /readyz 503 while the
	// database is opened and migrated (app.Serve).
	var opened *app.App
	defer func() {
		if opened != nil {
			opened.DB.Client.Close()
		}
	}()
	return app.Serve(ctx, cfg, ln, mln, logger(), func(ctx context.Context) (*app.App, error) {
		a, err := open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		opened = a
		var banner bytes.Buffer
		if err := a.Bootstrap(app.CommandLine(ctx), &banner); err != nil {
			return nil, fmt.Errorf("first start: %w", err)
		}
		// Printed once the App answers, so its curl line works at once.
		a.OnServing = func() { _, _ = c.stdout.Write(banner.Bytes()) }
		return a, nil
	})
}

func (c cli) migrate(args []string) error {
	cfg, err := c.settings("migrate", args, nil)
	if err != nil {
		return err
	}
	a, err := open(context.Background(), cfg)
	if err != nil {
		return err
	}
	return a.DB.Client.Close()
}

func (c cli) backup(args []string) error {
	var out string
	var opts app.BackupOptions
	cfg, err := c.settings("backup", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "file to write the backup to (a gzipped tar); required, must not exist")
		fs.BoolVar(&opts.IncludeKey, "include-key", false, "also copy the key of the database's secrets (without it, keep the key apart: restoring needs it)")
	})
	if err != nil {
		return err
	}
	if out == "" {
		return usageError{errors.New("backup: --out is required"), "folio backup"}
	}
	// The backup appears under its name only once complete.
	f, err := os.OpenFile(out+".partial", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	// Ctrl-C or SIGTERM stops the copy between blobs, and the partial
	// file is removed (the default handling would exit and leave it).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := app.Backup(ctx, cfg, f, opts)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists: not overwritten", out)
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "folio: backed up %s (%d bytes)", cfg.DatabaseLocation(), sum.DatabaseBytes)
	if sum.BlobsIncluded {
		fmt.Fprintf(c.stderr, " and %d blob files", sum.Blobs)
	} else {
		fmt.Fprint(c.stderr, "; the blobs are in FOLIO_BLOB_URL's store, which this backup does not copy: back it up with the store's own tools")
	}
	fmt.Fprintf(c.stderr, " to %s\n", out)
	if sum.KeyIncluded {
		fmt.Fprintf(c.stderr, "folio: the backup holds the key of the database's secrets: whoever reads it can open them; keep it as safe as the key\n")
	} else {
		fmt.Fprintf(c.stderr, "folio: the backup's secrets are sealed: restoring needs the key (%s, or FOLIO_SECRET_KEY), which this backup does not hold (--include-key)\n", cfg.KeyFile())
	}
	return nil
}

// secretsRotate re-seals the database's secrets with a new key: the one in
// FOLIO_NEW_SECRET_KEY (an environment variable, so that it is not seen in
// the process list) or, with the key file, a new one; with the key file,
// the new key is written there.
func (c cli) secretsRotate(args []string) error {
	cfg, err := c.settings("secrets rotate", args, nil)
	if err != nil {
		return err
	}
	var newKey *secrets.Key
	if v := os.Getenv("FOLIO_NEW_SECRET_KEY"); v != "" {
		k, err := secrets.ParseKey(v)
		if err != nil {
			return usageError{fmt.Errorf("FOLIO_NEW_SECRET_KEY is not valid: %v; want 32 bytes in base64 or hex (openssl rand -base64 32)", err), "folio secrets rotate"}
		}
		newKey = &k
	}
	ctx := context.Background()
	if err := cfg.PrepareDataDir(); err != nil {
		return err
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return err
	}
	defer d.Client.Close()
	n, keyFile, err := app.RotateSecrets(ctx, cfg, d, newKey)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "folio: re-sealed %d secrets of %s and its key check with the new key\n", n, cfg.DatabaseLocation())
	if keyFile != "" {
		fmt.Fprintf(c.stderr, "folio: the new key is in %s: back it up again (the old one no longer opens anything)\n", keyFile)
	} else {
		fmt.Fprintf(c.stderr, "folio: now set FOLIO_SECRET_KEY to the new key (FOLIO_NEW_SECRET_KEY) on every instance before starting them: the old key is refused\n")
	}
	return nil
}

func (c cli) restore(args []string) error {
	var in string
	cfg, err := c.settings("restore", args, func(fs *flag.FlagSet) {
		fs.StringVar(&in, "in", "", "backup file written by folio backup; required")
	})
	if err != nil {
		return err
	}
	if in == "" {
		return usageError{errors.New("restore: --in is required"), "folio restore"}
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := app.Restore(ctx, cfg, f) // stops between entries
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(c.stderr, "folio: restored %s (%d bytes) and %d blob files from %s\n", cfg.DatabaseLocation(), sum.DatabaseBytes, sum.Blobs, in)
	if sum.KeyIncluded {
		fmt.Fprintf(c.stderr, "folio: restored the key of the database's secrets to %s\n", cfg.KeyFile())
	} else {
		fmt.Fprintf(c.stderr, "folio: the backup holds no key: put the key file back at %s or set FOLIO_SECRET_KEY before starting\n", cfg.KeyFile())
	}
	return nil
}

func (c cli) tokenCreate(args []string) error {
	var email, name, org string
	var expires time.Duration
	cfg, err := c.settings("token create", args, func(fs *flag.FlagSet) {
		fs.DurationVar(&expires, "expires", 0, "the token stops working after this long (e.g. 720h); 0: never")
		fs.StringVar(&email, "email", "", "email of the user (created if needed); required")
		fs.StringVar(&name, "name", "", "display name of a new user")
		fs.StringVar(&org, "org", "", "also create an organization with this title, the user as admin")
	})
	if err != nil {
		return err
	}
	if email == "" {
		return usageError{errors.New("token create: --email is required"), "folio token create"}
	}
	// Run from another directory, the default ./data is a new, empty
	// database: say where the token went and whether that file is new.
	where, created := "the PostgreSQL database "+cfg.DatabaseLocation(), false
	if path := db.SQLitePath(cfg.DatabaseURL, cfg.DataDir); path != "" {
		_, err := os.Stat(path)
		where, created = "the SQLite database "+cfg.DatabaseLocation(), errors.Is(err, os.ErrNotExist)
	}
	ctx := app.CommandLine(context.Background())
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.DB.Client.Close()
	if expires < 0 {
		return usageError{errors.New("token create: --expires must not be negative"), "folio token create"}
	}
	token, _, err := a.IssueExpiringToken(ctx, email, name, org, expires)
	if err != nil {
		return err
	}
	if created {
		fmt.Fprintf(c.stderr, "folio: created a new database at %s: none was there (to use an existing one, run from its directory or set FOLIO_DATA_DIR or DATABASE_URL)\n", cfg.DatabaseLocation())
	}
	if a.MadeKeyFile != "" {
		fmt.Fprintf(c.stderr, "folio: made the key of the database's secrets at %s: back it up apart from the database\n", a.MadeKeyFile)
	}
	fmt.Fprintf(c.stderr, "folio: token for %s stored in %s\n", email, where)
	fmt.Fprintln(c.stdout, token)
	return nil
}

// userPassword sets a user's password from the first line of stdin.
func (c cli) userPassword(args []string) error {
	var email string
	cfg, err := c.settings("user password", args, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "email of the user (created if needed); required")
	})
	if err != nil {
		return err
	}
	if email == "" {
		return usageError{errors.New("user password: --email is required"), "folio user password"}
	}
	// One line, bounded: a password, not a file.
	line, err := bufio.NewReader(io.LimitReader(c.stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read the password from stdin: %w", err)
	}
	password := strings.TrimRight(line, "\r\n")
	if password == "" {
		return usageError{errors.New("user password: write the new password on stdin (echo or a pipe; one line)"), "folio user password"}
	}
	ctx := app.CommandLine(context.Background())
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.DB.Client.Close()
	if err := a.SetPassword(ctx, email, password); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "folio: password of %s set in %s; sign in at %s/sign-in\n", email, cfg.DatabaseLocation(), cfg.PublicBaseURL())
	return nil
}

// version prints the module version, the commit and the Go release the
// binary was built with, all from the build information Go embeds (go
// build stamps the commit; go run and go test do not).
func (c cli) version() {
	b := app.BuildInfo()
	var commit string
	switch {
	case b.Commit == "":
		commit = "commit unknown (no version control information: go run, go test or -buildvcs=false)"
	case b.Modified:
		commit = "commit " + b.Commit + " with uncommitted changes"
	default:
		commit = "commit " + b.Commit
	}
	fmt.Fprintf(c.stdout, "folio %s, %s, %s %s/%s\n", b.Version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// help prints the usage of command (all commands when ""), its own flags
// from fs, and every setting.
func (c cli) help(w io.Writer, command string, fs *flag.FlagSet) {
	switch command {
	case "":
		fmt.Fprint(w, `Folio: documentation server with a GitBook-compatible REST API (/v1) and GraphQL (/graphql).

Usage:
  folio [serve] [flags]        run the server (the default command); on the first
                               start, print a first API token and a curl line
  folio token create --email E [--name N] [--org TITLE] [--expires D] [flags]
                               print a new API token on stdout (where it was
                               stored goes to stderr)
  folio user password --email E [flags]
                               set the password of a user (created if needed)
                               for /sign-in; the password is read from stdin
  folio oidc add --name N --issuer URL --client-id ID [--label L] [--allowed-domains D,…] [flags]
                               let people sign in with an OpenID Connect provider;
                               the client secret is read from stdin
  folio oidc list [flags]      list the OpenID Connect providers
  folio oidc remove --name N [flags]
                               remove an OpenID Connect provider
  folio migrate [flags]        migrate the database schema and exit
  folio backup --out FILE [--include-key] [flags]
                               write a consistent copy of the SQLite database and
                               of the local blob directory to FILE, while servers
                               run (PostgreSQL: pg_dump, see the README); the key
                               of its secrets only with --include-key
  folio restore --in FILE [flags]
                               bring a backup back into an empty data directory
  folio secrets rotate [flags] re-seal the secrets kept in the database with a
                               new key: FOLIO_NEW_SECRET_KEY, or with SQLite's
                               key file a new one written there; servers stopped
  folio version                print the version
  folio help                   print this help (also -h, --help; COMMAND --help)
`)
	default:
		fmt.Fprintf(w, "Usage: folio %s [flags]\n", command)
		var own []string
		fs.VisitAll(func(f *flag.Flag) {
			if !isSetting(f.Name) {
				own = append(own, fmt.Sprintf("  --%-22s %s\n", f.Name, f.Usage))
			}
		})
		if len(own) > 0 {
			fmt.Fprintf(w, "\nFlags:\n%s", strings.Join(own, ""))
		}
	}
	fmt.Fprint(w, "\nSettings (a flag wins over its environment variable; unset or empty means the default;\na value that is not valid stops the command with exit status 2):\n")
	for _, s := range app.Settings {
		def := s.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(w, "  %s\n      %s, default %s\n      %s\n", strings.TrimSpace("--"+s.Flag+" "+s.Placeholder()), s.Env, def, s.Meaning)
	}
}

func isSetting(flag string) bool {
	for _, s := range app.Settings {
		if s.Flag == flag {
			return true
		}
	}
	return false
}
