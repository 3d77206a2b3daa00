// Package mail sends Folio's few messages (invitations) through one SMTP
// server, configured by a URL (FOLIO_SMTP_URL). It is the standard
// library's net/smtp with a deadline on the whole exchange: the messages
// are plain text to one recipient each, so no library's templating or
// pooling earns its dependency, and net/smtp already does STARTTLS, AUTH
// PLAIN (refused over plain text except to localhost) and dot-stuffing.
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds one message's whole SMTP exchange (dial to QUIT).
const DefaultTimeout = 10 * time.Second

// Message is a plain-text message to one recipient.
type Message struct {
	To      string
	Subject string
	Body    string
}

// Mailer sends through the SMTP server of a URL.
type Mailer struct {
	host, addr  string
	implicitTLS bool
	user, pass  string
	auth        bool
	from        *mail.Address
	// Timeout bounds one message (DefaultTimeout when zero); a context
	// deadline that comes sooner wins.
	Timeout time.Duration
	// TLSConfig is the TLS of smtps and STARTTLS (nil: the system's roots,
	// the server name of the URL); tests set their own roots.
	TLSConfig *tls.Config
}

// Parse reads smtp://user:password@host:port?from=folio@example.com
// (STARTTLS when the server offers it; port 587 by default) or smtps://…
// (TLS from the first byte; port 465 by default). The user and password
// are optional; from is required unless the user is an email address.
// Errors never include the password.
func Parse(raw string) (*Mailer, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	m := &Mailer{}
	port := "587"
	switch strings.ToLower(u.Scheme) {
	case "smtp":
	case "smtps":
		m.implicitTLS, port = true, "465"
	default:
		return nil, fmt.Errorf("scheme %q is not smtp or smtps", u.Scheme)
	}
	m.host = u.Hostname()
	if m.host == "" {
		return nil, errors.New("no host")
	}
	if p := u.Port(); p != "" {
		port = p
	}
	m.addr = net.JoinHostPort(m.host, port)
	if u.User != nil {
		m.user = u.User.Username()
		m.pass, _ = u.User.Password()
		m.auth = m.user != ""
	}
	from := u.Query().Get("from")
	if from == "" && strings.Contains(m.user, "@") {
		from = m.user
	}
	if from == "" {
		return nil, errors.New("no sender: add ?from=folio@example.com")
	}
	if m.from, err = mail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("from %q is not an email address", from)
	}
	return m, nil
}

// From is the sender's address.
func (m *Mailer) From() string { return m.from.Address }

// Send delivers msg, or says why not. It gives up after Timeout (or at
// ctx's deadline, if sooner).
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	to, err := mail.ParseAddress(msg.To)
	if err != nil {
		return fmt.Errorf("recipient %q is not an email address", msg.To)
	}
	if strings.ContainsAny(msg.Subject, "\r\n") {
		return errors.New("subject holds a line break")
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()

	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", m.addr)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", m.addr, err)
	}
	defer conn.Close()
	// The deadline covers every read and write of the exchange; a
	// cancelled context cuts it too.
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if m.implicitTLS {
		conn = tls.Client(conn, m.tlsConfig())
	}
	c, err := smtp.NewClient(conn, m.host)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", m.addr, err)
	}
	defer c.Close()
	if err := m.exchange(c, to.Address, message(m.from, to, msg)); err != nil {
		return fmt.Errorf("smtp %s: %w", m.addr, err)
	}
	return nil
}

func (m *Mailer) exchange(c *smtp.Client, to string, data []byte) error {
	if !m.implicitTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(m.tlsConfig()); err != nil {
				return err
			}
		}
	}
	if m.auth {
		if err := c.Auth(smtp.PlainAuth("", m.user, m.pass, m.host)); err != nil {
			return err
		}
	}
	if err := c.Mail(m.from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

func (m *Mailer) tlsConfig() *tls.Config {
	if m.TLSConfig != nil {
		return m.TLSConfig
	}
	return &tls.Config{ServerName: m.host, MinVersion: tls.VersionTLS12}
}

// message is the RFC 5322 text of msg: UTF-8 plain text, the subject
// encoded when it is not ASCII.
func message(from, to *mail.Address, msg Message) []byte {
	var b strings.Builder
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	_, domain, _ := strings.Cut(from.Address, "@")
	fmt.Fprintf(&b, "From: %s\r\n", from.String())
	fmt.Fprintf(&b, "To: %s\r\n", to.String())
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", msg.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", time.Now().UTC().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id), domain)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(msg.Body, "\r\n", "\n"), "\n", "\r\n"))
	return []byte(b.String())
}
