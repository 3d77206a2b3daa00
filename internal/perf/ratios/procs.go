package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// proc is a server this program started; stop ends it and only it.
type proc struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startProc runs argv in dir with extra environment, its output in logPath.
func startProc(name, dir, logPath string, env []string, argv ...string) (*proc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// anyAnswer is ready for a server with no readiness endpoint: any HTTP
// answer means it listens (the bare server, PostGraphile).
func anyAnswer(int) bool { return true }

// readyz is ready for Folio: /readyz answers 503 while the server starts
// (migrating the database) or drains, and 200 only when it takes traffic.
func readyz(status int) bool { return status == http.StatusOK }

// waitReady polls url until ready accepts the status of an answer, failing
// early when the process has exited (its log's tail says why).
func (p *proc) waitReady(ctx context.Context, url string, ready func(status int) bool, within time.Duration) error {
	deadline := time.Now().Add(within)
	last := "no answer"
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			resp.Body.Close()
			if ready(resp.StatusCode) {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %s", p.name, tail(p.log))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not ready at %s within %s (last: %s): %s", p.name, url, within, last, tail(p.log))
		}
	}
}

// tail is the last lines of a log, for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// freeAddr is a loopback address no one listens on now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// run runs a command to completion, its output returned in the error.
func run(ctx context.Context, dir string, env []string, argv ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
	}
	return out, err
}
