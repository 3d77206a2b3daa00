// Package fetch downloads what users point Folio at (files, imports, OpenAPI
// sources) with a timeout, a size cap and a redirect limit, refusing
// addresses on loopback, link-local and private networks unless the operator
// allows them (FOLIO_ALLOW_PRIVATE_FETCH): a guard against server-side
// request forgery that holds for every redirect and every resolved address.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
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
}

// ErrTooLarge reports a body over MaxBytes.
var ErrTooLarge = errors.New("the resource is larger than the size limit")

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
		return errors.New("must be an absolute http or https URL")
	}
	return nil
}

// Get downloads rawURL (http or https only).
func (f Fetcher) Get(ctx context.Context, rawURL string) (*Result, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, fmt.Errorf("%q %w", rawURL, err)
	}
	u, _ := url.Parse(rawURL)
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: f.control}
	client := &http.Client{
		Timeout: f.timeout(),
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			Proxy:                 nil,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: f.timeout(),
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > f.maxRedirects() {
				return fmt.Errorf("more than %d redirects", f.maxRedirects())
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a non-http URL")
			}
			return nil
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "Folio")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", u.Redacted(), unwrapDial(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("fetching %s: the server answered %s", u.Redacted(), resp.Status)
	}
	max := f.maxBytes()
	if resp.ContentLength > max {
		return nil, ErrTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", u.Redacted(), err)
	}
	if int64(len(body)) > max {
		return nil, ErrTooLarge
	}
	return &Result{Body: body, ContentType: resp.Header.Get("Content-Type"), URL: resp.Request.URL}, nil
}

// ErrPrivateAddress reports a refused destination.
var ErrPrivateAddress = errors.New("the address is on a private, loopback or link-local network (set FOLIO_ALLOW_PRIVATE_FETCH to allow it)")

// control runs for every connection, after name resolution: the address
// actually dialled is checked, so DNS tricks and redirects cannot slip by.
func (f Fetcher) control(network, address string, _ syscall.RawConn) error {
	if f.AllowPrivate {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || Private(ip) {
		return ErrPrivateAddress
	}
	return nil
}

// Private tells whether ip is loopback, link-local, private, unspecified or
// otherwise not a public unicast address.
func Private(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() ||
		cgnat.Contains(ip) || ip.Equal(net.IPv4bcast)
}

var cgnat = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

func unwrapDial(err error) error {
	if errors.Is(err, ErrPrivateAddress) {
		return ErrPrivateAddress
	}
	return err
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
