package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/skiplog"
	"github.com/folio/folio/internal/testkit"
)

// TestMain lets the tests run the test binary as the folio command itself
// (FOLIO_TEST_MAIN=1): the real main, exit status and streams included.
func TestMain(m *testing.M) {
	if os.Getenv("FOLIO_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// folioCommand is the folio command line args with the settings in env
// (and none from the test's own environment).
func folioCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append([]string{"FOLIO_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.Dir = t.TempDir()
	return cmd
}

// runFolio runs the folio command to its end.
func runFolio(t *testing.T, env []string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := folioCommand(t, env, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// runIn runs the command line in this process.
func runIn(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = run(args, &out, &errOut)
	return out.String(), errOut.String(), status
}

// TestBadSettingStopsTheServer: the real binary refuses to start on a value
// that does not parse, naming it, with exit status 2, before it creates
// anything; a flag that does not parse does the same.
func TestBadSettingStopsTheServer(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	stdout, stderr, status := runFolio(t, []string{"FOLIO_REQUEST_TIMEOUT=abc", "FOLIO_DATA_DIR=" + dataDir, "FOLIO_ADDR=127.0.0.1:0"})
	if status != 2 || stdout != "" || !strings.Contains(stderr, `FOLIO_REQUEST_TIMEOUT="abc" is not valid`) || !strings.Contains(stderr, "duration") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", status, stdout, stderr)
	}
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Fatalf("refused start created %s (%v)", dataDir, err)
	}

	_, stderr, status = runFolio(t, nil, "serve", "--max-imports", "0")
	if status != 2 || !strings.Contains(stderr, "-max-imports") || !strings.Contains(stderr, "greater than 0") {
		t.Fatalf("bad flag: exit %d: %s", status, stderr)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, status = runFolio(t, []string{"FOLIO_DATA_DIR=" + filepath.Join(file, "data")})
	if status != 2 || !strings.Contains(stderr, "FOLIO_DATA_DIR") || !strings.Contains(stderr, file+" is a file, not a directory") {
		t.Fatalf("data dir under a file: exit %d: %s", status, stderr)
	}
}

// TestDataDirNotWritable: a data directory without permission stops the
// start naming the path and the cause, not with a database driver's error.
func TestDataDirNotWritable(t *testing.T) {
	if os.Geteuid() == 0 {
		skiplog.Skip(t, "unwritable data directory check", "running as root, who writes through permission bits")
	}
	locked := filepath.Join(t.TempDir(), "locked")
	if err := os.Mkdir(locked, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", "")
	_, stderr, status := runIn(t, "token", "create", "--data-dir", locked, "--email", "a@example.com")
	if status != 1 || !strings.Contains(stderr, "data directory "+locked) || !strings.Contains(stderr, "permission denied") {
		t.Fatalf("exit %d: %s", status, stderr)
	}
}

// TestHelpAndVersion: help is asked for, so it goes to stdout with status 0
// and lists the commands and every setting; a command it does not know is a
// usage error.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		stdout, stderr, status := runIn(t, args...)
		if status != 0 || stderr != "" {
			t.Fatalf("folio %v: exit %d, stderr %s", args, status, stderr)
		}
		for _, want := range []string{"folio [serve]", "folio token create", "folio migrate", "folio version", "folio help"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("folio %v does not list %q:\n%s", args, want, stdout)
			}
		}
		for _, s := range app.Settings {
			if !strings.Contains(stdout, "--"+s.Flag) || !strings.Contains(stdout, s.Env) {
				t.Errorf("folio %v does not list %s", args, s.Env)
			}
		}
	}
	for _, args := range [][]string{{"serve", "--help"}, {"-help"}, {"token", "create", "-h"}, {"migrate", "--help"}} {
		stdout, _, status := runIn(t, args...)
		if status != 0 || !strings.Contains(stdout, "FOLIO_REQUEST_TIMEOUT") {
			t.Fatalf("folio %v: exit %d:\n%s", args, status, stdout)
		}
	}
	if stdout, _, _ := runIn(t, "token", "create", "--help"); !strings.Contains(stdout, "--email") {
		t.Fatalf("token create --help:\n%s", stdout)
	}

	for _, args := range [][]string{{"nonsense"}, {"token"}, {"token", "delete"}, {"serve", "extra"}, {"--no-such-flag"}} {
		stdout, stderr, status := runIn(t, args...)
		if status != 2 || stdout != "" || !strings.Contains(stderr, "--help") {
			t.Fatalf("folio %v: exit %d\nstdout: %s\nstderr: %s", args, status, stdout, stderr)
		}
	}
	if _, stderr, _ := runIn(t, "nonsense"); !strings.Contains(stderr, `unknown command "nonsense"`) || !strings.Contains(stderr, "folio token create") {
		t.Fatalf("unknown command: %s", stderr)
	}

	stdout, _, status := runIn(t, "version")
	if status != 0 || !regexp.MustCompile(`^folio \S+, commit \S+.*, `+regexp.QuoteMeta(runtime.Version())+` \w+/\w+\n$`).MatchString(stdout) {
		t.Fatalf("version: exit %d: %q", status, stdout)
	}
}

func TestTokenCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	t.Setenv("DATABASE_URL", "")
	stdout, stderr, status := runIn(t, "token", "create", "--data-dir", dir, "--email", "Ada@Example.com", "--name", "Ada", "--org", "Analytical")
	token := strings.TrimSuffix(stdout, "\n")
	if status != 0 || !strings.HasPrefix(token, "folio_") || strings.ContainsAny(token, "\n ") {
		t.Fatalf("token create: exit %d, stdout %q, want the token alone (stderr %s)", status, stdout, stderr)
	}
	// It says where the token went, and that this database is new.
	file := filepath.Join(dir, "folio.db")
	if !strings.Contains(stderr, "created a new database at "+file) || !strings.Contains(stderr, "stored in the SQLite database "+file) {
		t.Fatalf("stderr: %s", stderr)
	}
	second, stderr, _ := runIn(t, "token", "create", "--data-dir", dir, "--email", "ada@example.com")
	second = strings.TrimSpace(second)
	if second == token || strings.Contains(stderr, "created") || !strings.Contains(stderr, "stored in the SQLite database "+file) {
		t.Fatalf("second token %q, stderr: %s", second, stderr)
	}

	d, err := db.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Client.Close()
	ctx := context.Background()
	u := d.Client.User.Query().Where(user.Email("ada@example.com")).OnlyX(ctx)
	if u.DisplayName != "Ada" {
		t.Fatalf("user %+v", u)
	}
	// Only the hash is stored, and it is the token's.
	for _, tok := range []string{token, second} {
		if !d.Client.APIToken.Query().Where(apitoken.Hash(auth.HashToken(tok)), apitoken.UserID(u.ID)).ExistX(ctx) {
			t.Fatalf("token %s not stored for the user", tok)
		}
	}
	m := d.Client.Member.Query().Where(member.UserID(u.ID)).WithOrganization().OnlyX(ctx)
	if m.Edges.Organization.Title != "Analytical" || m.Role == nil || *m.Role != "admin" {
		t.Fatalf("membership %+v", m)
	}

	if _, stderr, status := runIn(t, "token", "create", "--data-dir", dir); status != 2 || !strings.Contains(stderr, "--email") {
		t.Fatalf("missing --email: exit %d: %s", status, stderr)
	}
}

// TestTokenCreatePostgresMasksPassword: a PostgreSQL URL is named without its
// password.
func TestTokenCreatePostgresMasksPassword(t *testing.T) {
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/folio_test"
	}
	if _, err := db.Open(context.Background(), url, ""); err != nil {
		if os.Getenv("FOLIO_REQUIRE_POSTGRES") == "1" {
			t.Fatal(err)
		}
		skiplog.Skip(t, "PostgreSQL command tests", "unreachable: "+err.Error())
	}
	withPassword := strings.Replace(url, "postgres@", "postgres:not-shown@", 1)
	// The shared database's secrets are sealed with the tests' key.
	stdout, stderr, status := runIn(t, "token", "create", "--database-url", withPassword, "--secret-key", testkit.SecretKey.String(), "--email", "pg-token@example.com")
	if status != 0 || !strings.HasPrefix(stdout, "folio_") || strings.Contains(stderr, "not-shown") || !strings.Contains(stderr, "stored in the PostgreSQL database postgres://postgres:xxxxx@") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", status, stdout, stderr)
	}
}

// TestPortTaken: a taken port stops the server naming the address, before
// a database is created or a first token printed.
func TestPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "data")
	stdout, stderr, status := runFolio(t, []string{"FOLIO_DATA_DIR=" + dir}, "serve", "--addr", ln.Addr().String())
	if status != 1 || stdout != "" || !strings.Contains(stderr, "cannot listen on "+ln.Addr().String()) || !strings.Contains(stderr, "address already in use") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", status, stdout, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a server that could not listen created %s (%v)", dir, err)
	}
}

// TestFirstStartBanner: the real binary prints the first-start banner once
// its port is bound, so the curl line it shows answers at once; SIGTERM
// then stops it cleanly.
func TestFirstStartBanner(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	cmd := folioCommand(t, []string{"FOLIO_DATA_DIR=" + dataDir}, "serve", "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	curl := regexp.MustCompile(`curl -s -H "Authorization: Bearer (\S+)" (\S+)`)
	lines := bufio.NewScanner(stdout)
	var m []string
	var banner strings.Builder
	for m == nil && lines.Scan() {
		banner.WriteString(lines.Text() + "\n")
		m = curl.FindStringSubmatch(lines.Text())
	}
	if m == nil {
		cmd.Wait()
		t.Fatalf("no curl line; stderr: %s", stderr.String())
	}
	if !strings.Contains(banner.String(), "database:      "+filepath.Join(dataDir, "folio.db")+"\n") {
		t.Errorf("the banner does not name the database file:\n%s", banner.String())
	}
	go io.Copy(io.Discard, stdout)
	req, _ := http.NewRequest("GET", m[2], nil)
	req.Header.Set("Authorization", "Bearer "+m[1])
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("the banner's curl line: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"title":"My Organization"`) {
		t.Fatalf("the banner's curl line answered %d: %s", resp.StatusCode, body)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v; stderr: %s", err, stderr.String())
	}
}

// TestServeMetricsAndVersion: the real binary's first log line names its
// version, /healthz says the same, /metrics answers on the metrics
// listener (FOLIO_METRICS_ADDR) with the public requests by route, and not
// on the public port; SIGTERM then stops it cleanly.
func TestServeMetricsAndVersion(t *testing.T) {
	cmd := folioCommand(t, []string{"FOLIO_DATA_DIR=" + filepath.Join(t.TempDir(), "data"), "FOLIO_METRICS_ADDR=127.0.0.1:0"},
		"serve", "--addr", "127.0.0.1:0")
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	type line struct{ Msg, Version, Addr string }
	lines := bufio.NewScanner(stderr)
	var first, metricsLine line
	for n := 0; lines.Scan(); n++ {
		var l line
		if err := json.Unmarshal(lines.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", lines.Text(), err)
		}
		if n == 0 {
			first = l
		}
		if l.Msg == "metrics listener" {
			metricsLine = l
		}
		if l.Msg == "serving" {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if first.Msg != "starting" || first.Version == "" || first.Addr == "" {
		t.Fatalf("first log line: %+v", first)
	}
	public, private := "http://"+first.Addr, "http://"+metricsLine.Addr
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get(public + "/healthz"); status != 200 || !strings.Contains(body, `"version":"`+first.Version+`"`) {
		t.Errorf("/healthz: %d %s, want version %s", status, body, first.Version)
	}
	if status, _ := get(public + "/metrics"); status != 404 {
		t.Errorf("/metrics on the public port: %d", status)
	}
	get(public + "/v1/orgs/someid") // refused before routing: counted under /v1/*, not its raw path
	status, body := get(private + "/metrics")
	if status != 200 || !strings.Contains(body, `folio_http_request_duration_seconds_count{method="GET",route="/v1/*",status="401"} 1`) ||
		!strings.Contains(body, `folio_ready 1`) || !strings.Contains(body, `folio_build_info{version="`+first.Version+`"} 1`) {
		t.Errorf("/metrics: %d\n%s", status, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}
}

// TestBackupRestoreCommands: folio backup writes a file that folio restore
// brings back into another data directory, where the token made before the
// backup still authenticates; restore refuses a directory with a database,
// and backup refuses PostgreSQL, naming pg_dump.
func TestBackupRestoreCommands(t *testing.T) {
	dir := t.TempDir()
	data, copyDir, file := filepath.Join(dir, "data"), filepath.Join(dir, "copy"), filepath.Join(dir, "folio.backup")
	token, _, status := runFolio(t, []string{"FOLIO_DATA_DIR=" + data}, "token", "create", "--email", "ops@example.com", "--org", "Ops")
	token = strings.TrimSpace(token)
	if status != 0 || token == "" {
		t.Fatalf("token create: %d", status)
	}
	if _, stderr, status := runFolio(t, []string{"FOLIO_DATA_DIR=" + data}, "backup", "--out", file); status != 0 || !strings.Contains(stderr, "backed up") {
		t.Fatalf("backup: %d %s", status, stderr)
	}
	if _, stderr, status := runFolio(t, []string{"FOLIO_DATA_DIR=" + copyDir}, "restore", "--in", file); status != 0 || !strings.Contains(stderr, "restored") {
		t.Fatalf("restore: %d %s", status, stderr)
	}
	d, err := db.Open(context.Background(), "", copyDir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Client.Close()
	if n := d.Client.APIToken.Query().Where(apitoken.Hash(auth.HashToken(token))).CountX(context.Background()); n != 1 {
		t.Errorf("the token made before the backup: %d rows after the restore", n)
	}
	if _, stderr, status := runFolio(t, []string{"FOLIO_DATA_DIR=" + copyDir}, "restore", "--in", file); status != 1 || !strings.Contains(stderr, "already") {
		t.Errorf("restore over a database: %d %s", status, stderr)
	}
	if _, stderr, status := runFolio(t, []string{"DATABASE_URL=postgres://folio@127.0.0.1:1/none"}, "backup", "--out", filepath.Join(dir, "pg")); status != 1 || !strings.Contains(stderr, "pg_dump") {
		t.Errorf("backup of PostgreSQL: %d %s", status, stderr)
	}
	if _, stderr, status := runFolio(t, nil, "backup"); status != 2 || !strings.Contains(stderr, "--out is required") {
		t.Errorf("backup without --out: %d %s", status, stderr)
	}
}

// TestSIGTERMDrains: after SIGTERM the real binary keeps serving for the
// drain delay with /readyz at 503 (and /healthz at 200), then exits 0.
func TestSIGTERMDrains(t *testing.T) {
	cmd := folioCommand(t, []string{"FOLIO_DATA_DIR=" + filepath.Join(t.TempDir(), "data"), "FOLIO_DRAIN_DELAY=3s", "FOLIO_SHUTDOWN_TIMEOUT=5s"},
		"serve", "--addr", "127.0.0.1:0")
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	until := func(msg string) (addr string) {
		t.Helper()
		for lines.Scan() {
			var l struct{ Msg, Addr string }
			_ = json.Unmarshal(lines.Bytes(), &l)
			if l.Msg == msg {
				return l.Addr
			}
		}
		t.Fatalf("no %q log line", msg)
		return ""
	}
	url := "http://" + until("serving")
	status := func(path string) int {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := status("/readyz"); s != 200 {
		t.Fatalf("/readyz before SIGTERM: %d", s)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	until("draining: /readyz answers 503, still serving")
	if s := status("/readyz"); s != 503 {
		t.Errorf("/readyz while draining: %d", s)
	}
	if s := status("/healthz"); s != 200 {
		t.Errorf("/healthz while draining: %d", s)
	}
	go io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v", err)
	}
}
