package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/folio/folio/internal/blob"
	"github.com/folio/folio/internal/testkit"
)

// fakeS3 is an S3-compatible server in this process (gofakes3, in memory)
// with one bucket, and the FOLIO_BLOB_URL that reaches it. The AWS SDK's
// credential chain is pinned to the environment, so nothing asks the
// network (no instance metadata, no profile files).
func fakeS3(t *testing.T, bucket string) (blobURL string, backend *s3mem.Backend) {
	t.Helper()
	backend = s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "folio-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "folio-test-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	q := url.Values{"endpoint": {srv.URL}, "use_path_style": {"true"}, "region": {"us-east-1"}, "disable_https": {"true"}}
	return "s3://" + bucket + "?" + q.Encode(), backend
}

// TestS3Store: the blob store speaks S3 to an S3-compatible server: bytes
// go in once under their key, come back whole, and a missing key is
// ErrNotFound.
func TestS3Store(t *testing.T) {
	blobURL, backend := fakeS3(t, "folio-blobs")
	ctx := context.Background()
	s, err := blob.Open(ctx, blobURL, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("bytes kept in S3")
	key, err := s.Put(ctx, data, "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, key); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("get: %q, %v", got, err)
	}
	obj, err := backend.HeadObject("folio-blobs", key)
	if err != nil || obj.Size != int64(len(data)) {
		t.Fatalf("the fake S3 holds %+v, %v", obj, err)
	}
	if _, err := s.Get(ctx, strings.Repeat("0", 64)); err != blob.ErrNotFound {
		t.Fatalf("missing key: %v", err)
	}
}

// TestTwoInstancesOnS3: two instances share one database and one S3
// bucket: a file stored through one downloads through the other, streamed
// from the bucket with its protective headers.
func TestTwoInstancesOnS3(t *testing.T) {
	blobURL, backend := fakeS3(t, "shared")
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			both := startInstances(t, 2, testkit.DatabaseURL(t, kind, t.TempDir()), blobURL)
			a, b := both[0], both[1]
			token, org := firstToken(t, both)
			_, space := a.call(t, token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Files"})
			sp := space["id"].(string)
			html := []byte("<script>alert(1)</script>")
			_, cr := a.call(t, token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{"subject": "A file"})
			crPath := "/v1/spaces/" + sp + "/change-requests/" + cr["id"].(string)
			status, res := a.call(t, token, "POST", crPath+"/content", map[string]any{"changes": []any{map[string]any{
				"operation": "insert_files",
				"files":     []any{map[string]any{"name": "page.html", "contentType": "text/html", "base64": base64.StdEncoding.EncodeToString(html)}},
			}}})
			if status != 200 {
				t.Fatalf("insert_files through a: %d %v", status, res)
			}
			if status, res := b.call(t, token, "POST", crPath+"/merge", nil); status != 200 {
				t.Fatalf("merge through b: %d %v", status, res)
			}
			var files struct {
				Items []struct{ ID, DownloadURL string }
			}
			status, list := b.call(t, token, "GET", "/v1/spaces/"+sp+"/content/files", nil)
			raw, _ := json.Marshal(list)
			if status != 200 || json.Unmarshal(raw, &files) != nil || len(files.Items) != 1 {
				t.Fatalf("files through b: %d %v", status, list)
			}
			if !strings.HasPrefix(files.Items[0].DownloadURL, b.url+"/files/") {
				t.Fatalf("download URL %s is not b's", files.Items[0].DownloadURL)
			}
			resp, err := http.Get(files.Items[0].DownloadURL)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			h := resp.Header
			if resp.StatusCode != 200 || !bytes.Equal(got, html) || h.Get("X-Content-Type-Options") != "nosniff" ||
				!strings.Contains(h.Get("Content-Security-Policy"), "sandbox") || !strings.HasPrefix(h.Get("Content-Disposition"), "attachment") {
				t.Fatalf("download through b: %d %q %v", resp.StatusCode, got, h)
			}
			key := strings.Split(strings.TrimPrefix(files.Items[0].DownloadURL, b.url+"/files/"), "/")[0]
			if _, err := backend.HeadObject("shared", key); err != nil {
				t.Fatalf("the file is not in the bucket: %v", err)
			}
		})
	}
}
