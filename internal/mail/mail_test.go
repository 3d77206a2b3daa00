package mail_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/mail"
	"github.com/folio/folio/internal/mail/mailtest"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct{ url, problem string }{
		{"http://h?from=a@b.c", "scheme"},
		{"smtp://?from=a@b.c", "no host"},
		{"smtp://h", "no sender"},
		{"smtp://u:secretpw@h?from=nope", "not an email"},
	} {
		_, err := mail.Parse(tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.problem) {
			t.Errorf("Parse(%q) = %v, want %q", tc.url, err, tc.problem)
		}
		if err != nil && strings.Contains(err.Error(), "secretpw") {
			t.Errorf("Parse(%q) error shows the password: %v", tc.url, err)
		}
	}
	m, err := mail.Parse("smtps://folio@example.com:pw@mail.example.com")
	if err != nil || m.From() != "folio@example.com" {
		t.Fatalf("sender from the user: %v %v", m, err)
	}
}

func TestSend(t *testing.T) {
	srv := mailtest.Start(t)
	m, err := mail.Parse(srv.URL("folio", "pw", "Folio <folio@example.com>"))
	if err != nil {
		t.Fatal(err)
	}
	body := "Hello,\n.\nJoin: http://x/y\n"
	if err := m.Send(context.Background(), mail.Message{To: "ann@example.com", Subject: "Invitation à Folio", Body: body}); err != nil {
		t.Fatal(err)
	}
	got := srv.Wait(t, 1, 5*time.Second)[0]
	if got.From != "folio@example.com" || len(got.To) != 1 || got.To[0] != "ann@example.com" || got.Auth != "folio:pw" {
		t.Fatalf("envelope: %+v", got)
	}
	for _, want := range []string{"Subject: =?utf-8?q?Invitation_=C3=A0_Folio?=", "\n.\nJoin: http://x/y", "Content-Type: text/plain; charset=utf-8"} {
		if !strings.Contains(got.Data, want) {
			t.Errorf("message lacks %q:\n%s", want, got.Data)
		}
	}

	if err := m.Send(context.Background(), mail.Message{To: "ann@example.com", Subject: "a\r\nBcc: x@y.z", Body: "x"}); err == nil {
		t.Error("a subject with a line break was sent")
	}
	srv.Reject.Store(true)
	if err := m.Send(context.Background(), mail.Message{To: "bob@example.com", Subject: "s", Body: "x"}); err == nil || !strings.Contains(err.Error(), "550") {
		t.Errorf("refused recipient: %v", err)
	}
}

func TestSendTimeout(t *testing.T) {
	srv := mailtest.Start(t)
	srv.Stall.Store(true)
	m, err := mail.Parse(srv.URL("", "", "folio@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	m.Timeout = 200 * time.Millisecond
	start := time.Now()
	if err := m.Send(context.Background(), mail.Message{To: "ann@example.com", Subject: "s", Body: "x"}); err == nil {
		t.Fatal("a stalled server did not fail the send")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("send took %v with a 200ms timeout", d)
	}
}
