package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
)

// Metrics reads the App's /metrics as Prometheus would, over HTTP.
func (s *Server) Metrics(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(s.App.MetricsHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// Sample is the value of the series written exactly as series (name and
// labels in the exposition's order) in a /metrics text, and whether it is
// there.
func Sample(text, series string) (float64, bool) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v, true
}
