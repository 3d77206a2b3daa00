package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"

	"github.com/folio/folio/internal/fetch"
)

// endpoint is a remote as go-git is given it: a URL free of credentials
// and the credentials apart.
type endpoint struct {
	url  string
	auth transport.AuthMethod
}

// scpLike is git's user@host:path form of an SSH address.
var scpLike = regexp.MustCompile(`^([^@/:\s]+)@([^@/:\s]+):(\S+)$`)

// endpoint checks r's address against what t allows and picks its
// credentials. Only http(s) goes through unless the operator configured
// SSH (known hosts) or, in tests, local paths.
func (t Transport) endpoint(r Remote) (*endpoint, error) {
	raw := strings.TrimSpace(r.URL)
	if !strings.Contains(raw, "://") {
		if m := scpLike.FindStringSubmatch(raw); m != nil {
			return t.sshEndpoint(raw, m[1], r)
		}
		return nil, refused("the repository address must be an http(s) URL")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" && u.Scheme != "file" {
		return nil, refused("the repository address is not a valid URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.User != nil {
			return nil, refused("the repository URL must not carry credentials: give them apart")
		}
		ep := &endpoint{url: u.String()}
		if r.Username != "" || r.Password != "" {
			ep.auth = &githttp.BasicAuth{Username: r.Username, Password: r.Password}
		}
		return ep, nil
	case "ssh":
		if _, has := u.User.Password(); has {
			return nil, refused("the repository URL must not carry credentials: give them apart")
		}
		return t.sshEndpoint(u.String(), u.User.Username(), r)
	case "file":
		if !t.AllowFile {
			return nil, refused("local repositories are not allowed")
		}
		return &endpoint{url: u.String()}, nil
	}
	return nil, refused("only http and https repository URLs are allowed")
}

// sshEndpoint authenticates with the configured key and accepts only the
// hosts of the configured known_hosts file. Remote.Password, if any,
// unlocks the key.
func (t Transport) sshEndpoint(raw, user string, r Remote) (*endpoint, error) {
	if t.KnownHosts == "" {
		return nil, refused("SSH repositories are not allowed: no known hosts are configured")
	}
	if t.SSHKey == "" {
		return nil, refused("SSH repositories need a key: none is configured")
	}
	if user == "" {
		user = r.Username
	}
	if user == "" {
		user = "git"
	}
	hosts, err := gitssh.NewKnownHostsCallback(t.KnownHosts)
	if err != nil {
		return nil, refused("the known hosts file could not be read")
	}
	auth, err := gitssh.NewPublicKeysFromFile(user, t.SSHKey, r.Password)
	if err != nil {
		return nil, refused("the SSH key could not be read")
	}
	auth.HostKeyCallback = hosts
	return &endpoint{url: raw, auth: auth}, nil
}

// refusedError is an address Folio will not reach; it is ErrRefused with
// the reason.
type refusedError struct{ reason string }

func (e *refusedError) Error() string        { return e.reason }
func (e *refusedError) Is(target error) bool { return target == ErrRefused }

func refused(reason string) error { return &refusedError{reason} }

// opError is a failure with no better name. Its text is Folio's; the
// cause (go-git's wording, which may name addresses) stays behind Unwrap.
type opError struct {
	msg string
	err error
}

func (e *opError) Error() string { return e.msg }
func (e *opError) Unwrap() error { return e.err }

func (t Transport) timeout() time.Duration {
	if t.Timeout > 0 {
		return t.Timeout
	}
	return 2 * time.Minute
}

func (t Transport) httpClient() *http.Client {
	if t.HTTP != nil {
		return t.HTTP
	}
	return fetch.Fetcher{}.HTTPClient()
}

// go-git picks a transport per URL scheme from a global table. Folio's is
// installed once and finds, in each request's context, the client and
// limits of the operation that made it: two Transports with different
// guards can work at once in one process. This relies on go-git (v5.19.3:
// plumbing/transport/http advertisedReferences and doRequest) making every
// request with the context given to FetchContext, PushContext and
// ListContext; a request without one fails (errNoClient).
var installHTTP sync.Once

func installTransports() {
	installHTTP.Do(func() {
		c := githttp.NewClient(&http.Client{Transport: contextTransport{}, CheckRedirect: contextRedirect})
		client.InstallProtocol("http", c)
		client.InstallProtocol("https", c)
	})
}

type stateKey struct{}

// httpState is one Fetch or Push's HTTP side: the client that makes its
// requests and what came back, read to tell a limit, an unreachable host or
// a failing server apart from go-git's own errors (which do not always
// wrap their causes).
type httpState struct {
	client *http.Client
	max    int64 // bytes all answers may hold together

	mu       sync.Mutex
	read     int64
	overMax  bool  // past max
	tooLarge bool  // past the client's own cap
	netErr   error // no answer
	status   int   // a 5xx or 429 answer
}

func (t Transport) withState(ctx context.Context, lim Limits) (context.Context, *httpState) {
	st := &httpState{client: t.httpClient(), max: lim.maxBytes()}
	return context.WithValue(ctx, stateKey{}, st), st
}

var errNoClient = errors.New("gitsync: an HTTP request outside Fetch or Push")

// contextTransport makes go-git's requests with the operation's client.
// Redirects are left to go-git's client (its policy strips credentials
// when they leave the origin), which asks the operation's client too
// (contextRedirect).
type contextTransport struct{}

func (contextTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(stateKey{}).(*httpState)
	if st == nil {
		return nil, errNoClient
	}
	c := *st.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		st.note(err)
		return nil, err
	}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		st.mu.Lock()
		st.status = resp.StatusCode
		st.mu.Unlock()
	}
	resp.Body = &countedBody{ReadCloser: resp.Body, st: st}
	return resp, nil
}

func contextRedirect(req *http.Request, via []*http.Request) error {
	st, _ := req.Context().Value(stateKey{}).(*httpState)
	if st == nil {
		return errNoClient
	}
	if st.client.CheckRedirect != nil {
		return st.client.CheckRedirect(req, via)
	}
	if len(via) >= 10 {
		return errors.New("too many redirects")
	}
	return nil
}

// note records why a request or a body failed.
func (st *httpState) note(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case errors.Is(err, fetch.ErrTooLarge):
		st.tooLarge = true
	case errors.Is(err, errOverMax), errors.Is(err, context.Canceled), errors.Is(err, fetch.ErrPrivateAddress):
	default:
		if st.netErr == nil {
			st.netErr = err
		}
	}
}

var errOverMax = errors.New("the transfer is over the limit")

// countedBody counts what all answers of an operation hold, against max.
type countedBody struct {
	io.ReadCloser
	st *httpState
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.st.mu.Lock()
	b.st.read += int64(n)
	over := b.st.max > 0 && b.st.read > b.st.max
	if over {
		b.st.overMax = true
	}
	b.st.mu.Unlock()
	if over {
		return n, errOverMax
	}
	if err != nil && err != io.EOF {
		b.st.note(err)
	}
	return n, err
}

// classify turns go-git's error into the contract's. parent is the
// caller's context (its end is the caller's decision, answered as such),
// ctx the operation's (its end is the timeout: a network failure).
func classify(parent, ctx context.Context, st *httpState, err error) error {
	if err == nil {
		return nil
	}
	if st != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
	}
	switch {
	case st != nil && st.overMax:
		return &LimitError{Bound: "bytes", Message: fmt.Sprintf("the repository's download is larger than the limit of %d bytes", st.max)}
	case st != nil && st.tooLarge || chainHas(err, is(fetch.ErrTooLarge)):
		return &LimitError{Bound: "bytes", Message: "the repository's download is larger than the size limit"}
	case parent.Err() != nil:
		return parent.Err()
	case ctx.Err() != nil:
		return &NetworkError{Err: ctx.Err()}
	case chainHas(err, is(fetch.ErrPrivateAddress)):
		return refused(fetch.ErrPrivateAddress.Error())
	case chainHas(err, is(transport.ErrRepositoryNotFound)), chainHas(err, is(transport.ErrAuthenticationRequired)),
		chainHas(err, is(transport.ErrAuthorizationFailed)), chainHas(err, is(transport.ErrInvalidAuthMethod)):
		return ErrAuth
	case chainHas(err, isRefMissing):
		return ErrRefNotFound
	case st != nil && (st.netErr != nil || st.status != 0), chainHas(err, isNetwork):
		return &NetworkError{Err: err}
	}
	return &opError{msg: "the Git operation failed", err: err}
}

// chainHas reports whether err or one of its causes satisfies pred.
// go-git's UnexpectedError and PermanentError hold a cause without
// Unwrap, so they are opened here.
func chainHas(err error, pred func(error) bool) bool {
	for err != nil {
		if pred(err) {
			return true
		}
		switch e := err.(type) {
		case interface{ Unwrap() []error }:
			for _, sub := range e.Unwrap() {
				if chainHas(sub, pred) {
					return true
				}
			}
			return false
		case *plumbing.UnexpectedError:
			err = e.Err
			continue
		case *plumbing.PermanentError:
			err = e.Err
			continue
		}
		err = errors.Unwrap(err)
	}
	return false
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func isRefMissing(err error) bool {
	var noMatch git.NoMatchingRefSpecError
	return errors.Is(err, plumbing.ErrReferenceNotFound) || errors.Is(err, transport.ErrEmptyRemoteRepository) ||
		errors.As(err, &noMatch)
}

func isNetwork(err error) bool {
	var ne net.Error
	var he *githttp.Err
	switch {
	case errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &he):
		return he.StatusCode() >= 500 || he.StatusCode() == http.StatusTooManyRequests
	}
	return false
}
