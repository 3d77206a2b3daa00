// Package fetch downloads what users point Folio at (files, imports, OpenAPI
// sources) with a timeout, a size cap and a redirect limit, refusing
// addresses that are not globally reachable (ranges.go) unless the operator
// allows them (FOLIO_ALLOW_PRIVATE_FETCH): a guard against server-side
// request forgery that holds for every redirect and every resolved address.
//
// Its errors are a fixed vocabulary the caller may show: they never carry an
// address, a port, the resolver's address or the system's wording, and every
// failure to reach a host reads the same, so a fetch cannot be used to map a
// network (a closed port, a filtered one and an unknown name look alike).
package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Fetcher downloads URLs under the limits it was made with.
type Fetcher struct {
	AllowPrivate bool
	Timeout      time.Duration
	MaxBytes     int64
	MaxRedirects int

	// dial replaces the network dialer in tests (to play a filtered port).
	dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// The errors of Get: sentences a caller may read, free of internals.
var (
	// ErrTooLarge reports a body over MaxBytes.
	ErrTooLarge = errors.New("the resource is larger than the size limit")
	// ErrPrivateAddress reports a refused destination.
	ErrPrivateAddress = errors.New("the host's address is private or reserved (loopback, private, link-local, documentation, multicast…): set FOLIO_ALLOW_PRIVATE_FETCH to allow it")
	// ErrUnreachable reports any failure to get an answer: unknown name,
	// closed or filtered port, unreachable network, TLS failure, timeout.
	ErrUnreachable = errors.New("the host could not be reached")
	// ErrRedirects reports a redirect chain over MaxRedirects or leaving http(s).
	ErrRedirects = errors.New("the resource redirects too often or to a URL that is not http(s)")
	// ErrBadURL reports a URL that is not absolute http(s).
	ErrBadURL = errors.New("must be an absolute http or https URL")
	// errReading reports a body cut off after the answer began.
	errReading = errors.New("the connection broke while reading the resource")
)

// StatusError reports an answer outside 2xx. Only the code is kept: the
// reason phrase is the remote server's own text.
type StatusError struct{ Code int }

func (e *StatusError) Error() string {
	return "the server answered " + strconv.Itoa(e.Code) + " " + http.StatusText(e.Code)
}

// Result is a downloaded resource.
type Result struct {
	Body        []byte
	ContentType string
	URL         *url.URL // after redirects
}

// CheckURL accepts absolute http and https URLs without blanks: the one
// definition of a URL Folio stores (logos, SAML sign-in addresses) or
// fetches.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		strings.ContainsAny(s, " \t\r\n") {
		return ErrBadURL
	}
	return nil
}

// Get downloads rawURL (http or https only). Its errors are those above, or
// the context's when ctx ends first.
func (f Fetcher) Get(ctx context.Context, rawURL string) (*Result, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	u, _ := url.Parse(rawURL)
	client := f.client()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, ErrBadURL
	}
	req.Header.Set("User-Agent", "Folio")
	resp, err := client.Do(req)
	if err != nil {
		return nil, failure(ctx, err, ErrUnreachable)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{Code: resp.StatusCode}
	}
	max := f.maxBytes()
	if resp.ContentLength > max {
		return nil, ErrTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, failure(ctx, err, errReading)
	}
	if int64(len(body)) > max {
		return nil, ErrTooLarge
	}
	return &Result{Body: body, ContentType: resp.Header.Get("Content-Type"), URL: resp.Request.URL}, nil
}

// client is an HTTP client under f's limits whose every connection is
// checked by control.
func (f Fetcher) client() *http.Client {
	dial := f.dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: min(10*time.Second, f.timeout()), Control: f.control}).DialContext
	}
	return &http.Client{
		Timeout: f.timeout(),
		Transport: &http.Transport{
			DialContext:           dial,
			Proxy:                 nil,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: f.timeout(),
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > f.maxRedirects() || (req.URL.Scheme != "http" && req.URL.Scheme != "https") {
				return ErrRedirects
			}
			return nil
		},
	}
}

// Post sends body to rawURL (http or https only) with header and answers
// the status code; redirects are not followed (a 3xx is the answer). At
// most 64 KiB of the answer is read, so the connection can be reused. Its
// errors are those of Get, or the context's.
func (f Fetcher) Post(ctx context.Context, rawURL string, header http.Header, body []byte) (int, error) {
	if err := CheckURL(rawURL); err != nil {
		return 0, err
	}
	client := f.client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, ErrBadURL
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "Folio")
	resp, err := client.Do(req)
	if err != nil {
		return 0, failure(ctx, err, ErrUnreachable)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// failure turns a transport error into one of the package's: the system's
// wording names addresses, ports and the resolver, and tells a refused
// connection from a timeout, so none of it reaches the caller.
func failure(ctx context.Context, err, otherwise error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrPrivateAddress):
		return ErrPrivateAddress
	case errors.Is(err, ErrRedirects):
		return ErrRedirects
	}
	return otherwise
}

// control runs for every connection, after name resolution: the address
// actually dialled is checked, so DNS tricks and redirects cannot slip by.
func (f Fetcher) control(network, address string, _ syscall.RawConn) error {
	if f.AllowPrivate {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return ErrPrivateAddress
	}
	if ip := net.ParseIP(host); ip == nil || Private(ip) {
		return ErrPrivateAddress
	}
	return nil
}

func (f Fetcher) timeout() time.Duration {
	if f.Timeout > 0 {
		return f.Timeout
	}
	return 30 * time.Second
}

func (f Fetcher) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return 10 << 20
}

func (f Fetcher) maxRedirects() int {
	if f.MaxRedirects > 0 {
		return f.MaxRedirects
	}
	return 5
}

// CheckDestination refuses, unless f allows private addresses, a URL whose
// host is, or resolves to, an address that is not globally reachable: the
// check made when a URL is registered (webhooks). A name that does not
// resolve now passes; sending checks every connection again (control).
func (f Fetcher) CheckDestination(ctx context.Context, rawURL string) error {
	if err := CheckURL(rawURL); err != nil {
		return err
	}
	if f.AllowPrivate {
		return nil
	}
	u, _ := url.Parse(rawURL)
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		if Private(ip) {
			return ErrPrivateAddress
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if Private(a.IP) {
			return ErrPrivateAddress
		}
	}
	return nil
}

// HTTPClient is an http.Client under f's guard, timeout and redirect limit
// whose answers' bodies stop at MaxBytes (a read past it fails with
// ErrTooLarge): for libraries that make their own requests (OpenID Connect
// discovery, keys and token exchange). Its errors are the transport's, not
// the package's vocabulary: callers show their own message.
//
// Make one and keep it: each has its own connection pool, whose idle
// connections close after 90 seconds.
func (f Fetcher) HTTPClient() *http.Client {
	c := f.client()
	if t, ok := c.Transport.(*http.Transport); ok {
		t.IdleConnTimeout = 90 * time.Second
	}
	c.Transport = capped{next: c.Transport, max: f.maxBytes()}
	return c
}

// capped cuts every answer's body at max bytes.
type capped struct {
	next http.RoundTripper
	max  int64
}

func (c capped) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: c.max}
	return resp, nil
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max from a longer one.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
