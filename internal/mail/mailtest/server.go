// Package mailtest is a tiny in-process SMTP server for tests: it speaks
// enough of RFC 5321 for net/smtp (EHLO, AUTH PLAIN, MAIL, RCPT, DATA,
// RSET, NOOP, QUIT) on a loopback port and keeps what it receives. No
// network leaves the machine.
package mailtest

import (
	"encoding/base64"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Message is one message received.
type Message struct {
	From string
	To   []string
	// Auth is "user:password" when the client authenticated.
	Auth string
	Data string
}

// Server receives messages until the test ends.
type Server struct {
	ln       net.Listener
	mu       sync.Mutex
	messages []Message
	arrived  chan struct{}
	// Reject makes RCPT answer 550 (a refused recipient).
	Reject atomic.Bool
	// Stall makes the server accept connections and never answer (a hung
	// server, for timeouts).
	Stall atomic.Bool
}

// Start listens on 127.0.0.1 and serves until t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{ln: ln, arrived: make(chan struct{}, 1000)}
	var wg sync.WaitGroup
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); s.serve(conn) }()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is an smtp:// URL for this server with the given credentials and
// sender.
func (s *Server) URL(user, password, from string) string {
	cred := ""
	if user != "" {
		cred = user + ":" + password + "@"
	}
	return "smtp://" + cred + s.Addr() + "?from=" + from
}

// Messages is what arrived so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Wait waits up to d for n messages in all and returns them.
func (s *Server) Wait(t testing.TB, n int, d time.Duration) []Message {
	t.Helper()
	deadline := time.After(d)
	for len(s.Messages()) < n {
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("mailtest: %d messages arrived, want %d", len(s.Messages()), n)
		}
	}
	return s.Messages()
}

func (s *Server) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if s.Stall.Load() {
		_, _ = c.Read(make([]byte, 1))
		return
	}
	tp := textproto.NewConn(c)
	reply := func(line string) bool { return tp.PrintfLine("%s", line) == nil }
	reply("220 mailtest ready")
	var cur Message
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			reply("250-mailtest")
			reply("250-AUTH PLAIN")
			reply("250 8BITMIME")
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			if !strings.EqualFold(mech, "PLAIN") {
				reply("504 unsupported")
				continue
			}
			raw, err := base64.StdEncoding.DecodeString(resp)
			parts := strings.Split(string(raw), "\x00")
			if err != nil || len(parts) != 3 {
				reply("501 bad credentials")
				continue
			}
			cur.Auth = parts[1] + ":" + parts[2]
			reply("235 ok")
		case "MAIL":
			cur.From = addrOf(arg)
			reply("250 ok")
		case "RCPT":
			if s.Reject.Load() {
				reply("550 no such user")
				continue
			}
			cur.To = append(cur.To, addrOf(arg))
			reply("250 ok")
		case "DATA":
			reply("354 go on")
			lines, err := tp.ReadDotLines()
			if err != nil {
				return
			}
			cur.Data = strings.Join(lines, "\n")
			s.mu.Lock()
			s.messages = append(s.messages, cur)
			s.mu.Unlock()
			s.arrived <- struct{}{}
			cur = Message{Auth: cur.Auth}
			reply("250 queued")
		case "RSET":
			cur = Message{Auth: cur.Auth}
			reply("250 ok")
		case "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 not implemented")
		}
	}
}

// addrOf reads the address of "FROM:<a@b>" or "TO:<a@b>".
func addrOf(arg string) string {
	_, v, _ := strings.Cut(arg, ":")
	v, _, _ = strings.Cut(strings.TrimSpace(v), " ")
	return strings.Trim(v, "<>")
}
