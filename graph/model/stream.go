package model

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// TreeStream writes page trees straight to the client. gqlgen writes an
// answer into one buffer, and its transport encodes that buffer again
// (json.Marshal) before writing it: a 38 MB answer was held three times
// over. In a streamed answer a tree leaves a short place-holder in gqlgen's
// buffer, and the ResponseWriter (Writer) writes the tree in its place,
// through a small buffer, as the transport writes the answer.
type TreeStream struct {
	// prefix starts every place-holder: a JSON string that gqlgen cannot
	// write for any other value (its first character is an escaped NUL and
	// the nonce is random per request), followed by the tree's index.
	prefix []byte
	mu     sync.Mutex
	trees  []*PageTree
	marks  []int64 // the length of each tree's place-holder
}

type streamKey struct{}

// WithTreeStream makes the trees of the answer to ctx's request stream.
func WithTreeStream(ctx context.Context) (context.Context, *TreeStream) {
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce)
	st := &TreeStream{prefix: []byte(`"\u0000tree:` + hex.EncodeToString(nonce) + `:`)}
	return context.WithValue(ctx, streamKey{}, st), st
}

func streamOf(ctx context.Context) *TreeStream {
	st, _ := ctx.Value(streamKey{}).(*TreeStream)
	return st
}

// TreeBytes is what the streamed trees of ctx's answer add to the size of
// gqlgen's answer, or, when that is certainly no more than room, possibly
// less: a tree is counted exactly, which costs a pass over it, only when a
// cheap bound on its size does not settle that the answer fits.
func TreeBytes(ctx context.Context, room int64) int64 {
	st := streamOf(ctx)
	if st == nil {
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var bound int64
	for i, t := range st.trees {
		bound += t.bound() - st.marks[i]
	}
	if bound <= room {
		return bound
	}
	var exact int64
	for i, t := range st.trees {
		var n counter
		_ = t.write(out{w: &n}) // it wrote before, on hold, without error
		exact += int64(n) - st.marks[i]
	}
	return exact
}

// hold writes a place-holder for t.
func (st *TreeStream) hold(w io.Writer, t *PageTree) error {
	st.mu.Lock()
	i := len(st.trees)
	st.trees = append(st.trees, t)
	mark := string(st.prefix) + strconv.Itoa(i) + `"`
	st.marks = append(st.marks, int64(len(mark)))
	st.mu.Unlock()
	_, err := io.WriteString(w, mark)
	return err
}

type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

func (c *counter) WriteString(s string) (int, error) { *c += counter(len(s)); return len(s), nil }

// Writer is w writing the streamed trees in place of their place-holders.
func (st *TreeStream) Writer(w http.ResponseWriter) http.ResponseWriter {
	return &streamWriter{ResponseWriter: w, st: st}
}

type streamWriter struct {
	http.ResponseWriter
	st *TreeStream
}

func (sw *streamWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// Flush passes through (every Write has written its trees already):
// multipart answers flush each part.
func (sw *streamWriter) Flush() { _ = http.NewResponseController(sw.ResponseWriter).Flush() }

// Hijack passes through (WebSocket upgrades).
func (sw *streamWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(sw.ResponseWriter).Hijack()
}

func (sw *streamWriter) Write(p []byte) (int, error) {
	st := sw.st
	st.mu.Lock()
	held := len(st.trees)
	st.mu.Unlock()
	if held == 0 {
		return sw.ResponseWriter.Write(p)
	}
	bw := bufio.NewWriterSize(sw.ResponseWriter, 64<<10)
	n := len(p)
	for {
		i := bytes.Index(p, st.prefix)
		if i < 0 {
			break
		}
		end := bytes.IndexByte(p[i+len(st.prefix):], '"')
		if end < 0 {
			break
		}
		idx, err := strconv.Atoi(string(p[i+len(st.prefix) : i+len(st.prefix)+end]))
		if err != nil || idx >= held {
			break // not a place-holder after all: write it as it is
		}
		bw.Write(p[:i])
		if err := st.trees[idx].write(out{w: bw, html: true}); err != nil {
			return 0, err
		}
		p = p[i+len(st.prefix)+end+1:]
	}
	bw.Write(p)
	return n, bw.Flush()
}
