package graph

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/internal/apperr"
)

// maxStreamMessage bounds a message a WebSocket client sends (an
// operation, as a request body is bounded).
const maxStreamMessage = 256 << 10

// IsWebSocket reports whether r asks to become a WebSocket (a GraphQL
// subscription's): it has no deadline at all once upgraded, each event's
// work has its own (internal/app's deadline).
func IsWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// IsEventStream reports whether r asks for graphql-sse: a POST that
// accepts text/event-stream and nothing else, as graphql-sse's clients
// send it. urql, for one, accepts text/event-stream among JSON types on
// every request: its queries and mutations are answered as JSON
// (httpTransport).
func IsEventStream(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	accept := r.Header.Values("Accept")
	if len(accept) == 0 {
		return false
	}
	for _, v := range accept {
		for part := range strings.SplitSeq(v, ",") {
			if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err != nil || mt != "text/event-stream" {
				return false
			}
		}
	}
	return true
}

// websocketTransport serves graphql-transport-ws (and the older graphql-ws)
// with the bounds of SubscriptionSettings. The caller authenticates by the
// upgrade request's own Authorization header or by connection_init's
// payload (Authorization: "Bearer …", or authToken / token).
func (r *Resolver) websocketTransport() transport.Websocket {
	s := r.SubscriptionSettings.withDefaults()
	limit := int64(maxStreamMessage)
	return transport.Websocket{
		// The origin is checked before (sameOriginStream): the library's
		// own check would refuse every cross-origin client, token or not.
		Implementation:        transport.CoderWebsocketImplementation{AcceptOptions: websocket.AcceptOptions{InsecureSkipVerify: true}},
		InitFunc:              r.websocketInit,
		InitTimeout:           10 * time.Second,
		PingPongInterval:      s.Heartbeat,
		KeepAlivePingInterval: s.Heartbeat,
		PayloadReadLimit:      &limit,
		CloseFunc: func(ctx context.Context, _ int) {
			if stop, ok := ctx.Value(connStopKey{}).(func()); ok {
				stop()
			}
		},
	}
}

type connStopKey struct{}

// websocketInit authenticates connection_init's token, if any, and gives
// the connection its bounds (withConn).
func (r *Resolver) websocketInit(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	if token := initToken(payload); token != "" {
		var err error
		if ctx, err = r.viewerContext(ctx, token); err != nil {
			// graphql-transport-ws's close code for a refused init.
			return transport.WithWebsocketCloseCode(ctx, 4403), nil, err
		}
	}
	s := r.SubscriptionSettings.withDefaults()
	ctx, stop := withConn(ctx, s.PerConnection, s.Idle, s.MaxLifetime)
	return context.WithValue(ctx, connStopKey{}, stop), nil, nil
}

// initToken is the API token of a connection_init payload.
func initToken(p transport.InitPayload) string {
	for _, k := range []string{"Authorization", "authorization"} {
		if v := p.GetString(k); v != "" {
			if t, ok := strings.CutPrefix(v, "Bearer "); ok {
				return strings.TrimSpace(t)
			}
			return strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"authToken", "token"} {
		if v := p.GetString(k); v != "" {
			return v
		}
	}
	return ""
}

// errCrossOriginStream refuses a stream that a browser would send with
// Folio's cookies from another site.
var errCrossOriginStream = &apperr.Error{Kind: apperr.Forbidden, Message: "a stream sent with cookies must come from Folio's own origin (Origin)"}

// sameOriginStream refuses an upgrade or an event stream that carries
// cookies unless it comes from Folio's own origin: a browser sends a
// site's cookies with either from any page, and neither is held back by
// CORS. Without cookies the caller authenticates by token, which another
// site's page does not have.
func sameOriginStream(base string, r *http.Request) error {
	if r.Header.Get("Cookie") == "" || sameOrigin(base, r) {
		return nil
	}
	return errCrossOriginStream
}

// streamOrigin is the handler of /graphql's streams behind
// sameOriginStream.
func (r *Resolver) streamOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if IsWebSocket(req) || IsEventStream(req) {
			if err := sameOriginStream(r.BaseURL, req); err != nil {
				apperr.Write(w, req, err)
				return
			}
		}
		next.ServeHTTP(w, req)
	})
}

// sseTransport serves graphql-sse in distinct-connections mode: a POST
// with Accept: text/event-stream carries one operation, answered as
// `next` events (each with the event's id as the message id, so a client
// reconnects with Last-Event-ID) and a final `complete`. A request that
// fails before execution is answered as any GraphQL request (refuse).
type sseTransport struct {
	settings SubscriptionSettings
}

var _ graphql.Transport = sseTransport{}

func (sseTransport) Supports(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return IsEventStream(r) && mt == "application/json"
}

func (t sseTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		apperr.Write(w, r, apperr.Invalidf("could not read the request body"))
		return
	}
	params, err := postParams(r, body, start)
	if err != nil {
		apperr.Write(w, r, err)
		return
	}
	s := t.settings.withDefaults()
	ctx, stop := withConn(r.Context(), 1, 0, s.MaxLifetime)
	defer stop()
	oc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		refuse(w, r, exec, graphql.WithOperationContext(ctx, oc), errs)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	w.WriteHeader(http.StatusOK)
	out := &sseWriter{w: w}
	out.write(":\n\n")
	hb := time.NewTicker(s.Heartbeat)
	defer hb.Stop()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hb.C:
				out.write(": ping\n\n")
			}
		}
	}()
	responses, dctx := exec.DispatchOperation(ctx, oc)
	for {
		resp := responses(dctx)
		if resp == nil {
			break
		}
		b, err := json.Marshal(resp)
		if err != nil {
			apperr.LogInternal(ctx, err, "what", "an event stream's answer")
			break
		}
		id, _ := resp.Extensions["eventId"].(string)
		msg := "event: next\n"
		if id != "" {
			msg += "id: " + id + "\n"
		}
		out.write(msg + "data: " + string(b) + "\n\n")
		hb.Reset(s.Heartbeat)
		if oc.Operation.Operation != ast.Subscription {
			break // a query or a mutation: one answer
		}
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		// The stream ended on the server's side (its lifetime): say so.
		b, _ := json.Marshal(graphql.Response{Errors: gqlerror.List{{Message: cause.Error(), Extensions: map[string]any{"code": "STREAM_ENDED"}}}})
		out.write("event: next\ndata: " + string(b) + "\n\n")
	}
	out.write("event: complete\ndata:\n\n")
}

// sseWriter writes whole events, one at a time, and flushes each (a flush
// also moves the stream's write deadline: internal/app's deadline).
type sseWriter struct {
	mu sync.Mutex
	w  http.ResponseWriter
}

func (s *sseWriter) write(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.w, msg); err == nil {
		_ = http.NewResponseController(s.w).Flush()
	}
}

// errSubscriptionOverHTTP refuses a subscription sent as a plain request.
func errSubscriptionOverHTTP() *gqlerror.Error {
	return &gqlerror.Error{
		Message:    "a subscription needs a stream: a WebSocket (graphql-transport-ws) or a POST with Accept: text/event-stream (graphql-sse)",
		Extensions: map[string]any{"code": codeNotAcceptable},
	}
}
