package graph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
)

// What clients send, and its bounds.
const (
	// MaxBatch is the most operations one batched request (a JSON array of
	// operations) may carry; their costs together stay within
	// MaxComplexity.
	MaxBatch = 10
	// AnonymousMaxAge is how long a shared cache may keep the answer to an
	// anonymous GET that answered without errors. Anonymous callers read
	// only what is published, which anyone may read, so a CDN may serve it;
	// a minute bounds how stale a republished page can be.
	AnonymousMaxAge = 60 * time.Second
)

// httpTransport serves GraphQL over HTTP: GET and POST, one operation or a
// batch (a JSON array), and the answer as JSON or, when the client accepts
// multipart/mixed, as incremental delivery for @defer. It writes every
// answer itself rather than through gqlgen's transports, for three
// reasons: an error raised before execution (parse, validation, cost,
// document bounds, persisted query not found) is answered with `errors`
// and no `data` key, as GraphQL over HTTP asks (gqlgen's Response always
// writes "data": null); GET answers carry caching headers that depend on
// who asked and how it went; and batches.
type httpTransport struct {
	// fresh gives an operation of a batch that follows a mutation new
	// loaders (Resolver.FreshLoaders).
	fresh func(context.Context) (context.Context, error)
}

var _ graphql.Transport = httpTransport{}

func (httpTransport) Supports(r *http.Request) bool {
	if r.Header.Get("Upgrade") != "" {
		return false
	}
	if r.Method == http.MethodGet {
		return true
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return r.Method == http.MethodPost && mt == "application/json"
}

func (t httpTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	if r.Method == http.MethodGet {
		params, err := getParams(r)
		if err != nil { // wellFormed checked them
			apperr.Write(w, r, err)
			return
		}
		params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
		t.single(w, r, exec, params)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		apperr.Write(w, r, apperr.Invalidf("could not read the request body"))
		return
	}
	if isBatch(body) {
		t.batch(w, r, exec, body, start)
		return
	}
	params, err := postParams(r, body, start)
	if err != nil {
		apperr.Write(w, r, err)
		return
	}
	t.single(w, r, exec, params)
}

// postParams is the one operation a POST's body carries.
func postParams(r *http.Request, body []byte, start time.Time) (*graphql.RawParams, error) {
	params := &graphql.RawParams{}
	if err := decodeParam("the body", string(body), params); err != nil {
		return nil, err
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	return params, nil
}

// getParams reads an operation from GET's query string.
func getParams(r *http.Request) (*graphql.RawParams, error) {
	q := r.URL.Query()
	params := &graphql.RawParams{Query: q.Get("query"), OperationName: q.Get("operationName"), Headers: r.Header}
	if v := q.Get("variables"); v != "" {
		if err := decodeParam("variables", v, &params.Variables); err != nil {
			return nil, err
		}
	}
	if v := q.Get("extensions"); v != "" {
		if err := decodeParam("extensions", v, &params.Extensions); err != nil {
			return nil, err
		}
	}
	return params, nil
}

// isBatch reports whether a POST body is a JSON array (of operations).
func isBatch(body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '['
}

// single runs one operation and answers it.
func (t httpTransport) single(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, params *graphql.RawParams) {
	ctx := r.Context()
	oc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		refuse(w, r, exec, graphql.WithOperationContext(ctx, oc), errs)
		return
	}
	if oc.Operation.Operation == ast.Subscription {
		refuse(w, r, exec, graphql.WithOperationContext(ctx, oc), gqlerror.List{errSubscriptionOverHTTP()})
		return
	}
	// Only an operation that defers something is answered in parts: urql
	// and others accept multipart/mixed on every request, and read a plain
	// answer best as plain JSON.
	if deferred(oc) {
		if !IsStream(r) {
			refuse(w, r, exec, graphql.WithOperationContext(ctx, oc), gqlerror.List{errDeferNeedsMultipart()})
			return
		}
		stream(w, r, exec, oc)
		return
	}
	resp := execute(ctx, exec, oc)
	if resp == nil {
		return // the request ended (deadline, client gone): the deadline answers
	}
	if r.Method == http.MethodGet {
		cacheHeaders(w.Header(), ctx, len(resp.Errors) == 0)
	}
	w.Header().Set("Content-Type", responseType(r))
	b, err := json.Marshal(resp)
	if err != nil {
		apperr.Write(w, r, err)
		return
	}
	_, _ = w.Write(b)
}

// execute runs an operation to its (single) answer.
func execute(ctx context.Context, exec graphql.GraphExecutor, oc *graphql.OperationContext) *graphql.Response {
	responses, ctx := exec.DispatchOperation(ctx, oc)
	return responses(ctx)
}

// refuse answers errors raised before execution: the executor presents
// them and counts them (DispatchError runs the response interceptors),
// and the answer has no data key. The status is gqlgen's (422, or 400
// for application/graphql-response+json, for a document that does not
// parse or validate; 200 for the others), except UNAUTHENTICATED (401,
// with its challenge) and a @defer the client cannot read (406).
func refuse(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, ctx context.Context, errs gqlerror.List) {
	resp := exec.DispatchError(ctx, errs)
	if r.Method == http.MethodGet {
		cacheHeaders(w.Header(), ctx, false)
	}
	contentType := responseType(r)
	status := requestErrorStatus(errs, contentType)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", apperr.Challenge)
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(requestErrorBody(resp))
}

// requestErrorBody is a request error's answer: errors (and extensions),
// never data.
func requestErrorBody(resp *graphql.Response) []byte {
	b, _ := json.Marshal(struct {
		Errors     gqlerror.List  `json:"errors"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Errors, resp.Extensions})
	return b
}

func requestErrorStatus(errs gqlerror.List, contentType string) int {
	for _, e := range errs {
		switch e.Extensions["code"] {
		case "UNAUTHENTICATED":
			return http.StatusUnauthorized
		case codeNotAcceptable:
			return http.StatusNotAcceptable
		}
	}
	if errcode.GetErrorKind(errs) == errcode.KindProtocol {
		if contentType == graphQLResponseJSON {
			return http.StatusBadRequest
		}
		return http.StatusUnprocessableEntity
	}
	return http.StatusOK
}

const graphQLResponseJSON = "application/graphql-response+json"

// responseType is the media type of a JSON answer, negotiated as gqlgen's
// transports do: application/json unless the client asks for
// application/graphql-response+json or accepts neither.
func responseType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return "application/json"
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", "application/json":
			return "application/json"
		case graphQLResponseJSON:
			return graphQLResponseJSON
		}
	}
	return graphQLResponseJSON
}

// cacheHeaders are the caching headers of a GET answer. An answer to an
// authenticated caller is theirs alone (private, no-cache). An anonymous
// caller reads only published content, the same for anyone: a shared
// cache may keep it for AnonymousMaxAge, if it answered without errors
// (a refusal or a failure is not worth keeping: no-store). Every GET
// answer varies on the credentials and on Origin (CORS), so a cache never
// serves one caller's answer to another. An answer that depends on a
// published site's secret the caller sent (publishedSite's shareKey or
// visitorToken) is private and stored nowhere, whoever asked.
func cacheHeaders(h http.Header, ctx context.Context, ok bool) {
	h.Set("Vary", "Authorization, Cookie, Origin")
	switch {
	case loader.For(ctx).Private():
		// It depends on a secret in the query (a share link's key, a
		// visitor token): the URL differs per secret, but a cache must not
		// even hold a visitor token's answer.
		h.Set("Cache-Control", "private, no-store")
	case auth.ViewerID(ctx) != "":
		h.Set("Cache-Control", "private, no-cache")
	case ok:
		h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(AnonymousMaxAge/time.Second)))
	default:
		h.Set("Cache-Control", "no-store")
	}
}

// IsStream reports whether r asks for an answer in parts (multipart/mixed:
// incremental delivery of @defer). Streams have no deadline as a whole,
// only one per part (internal/app's deadline).
func IsStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "multipart/mixed")
}

// stream answers an operation, validated already, in parts with gqlgen's
// MultipartMixed (deferSpec=20220824, which Apollo Client reads with its
// Defer20220824Handler): the initial answer, then each deferred fragment
// as it completes. The transport reads its operation from a POST body and
// creates it again; it is given the operation created here (prepared), so
// a request error never reaches its own writer (which writes data: null),
// and a GET is handed to it as a POST.
//
// The operation runs detached from the request (loader.Detach): gqlgen
// drops a deferred part whose context has ended while the transport waits
// for it, and the transport (and with it this handler and its connection)
// would then wait forever. When the request ends (the client leaves, a
// part's deadline passes) the operation stops all the same: no field
// starts (the answer's flag) and no queued loader batch runs, so the parts
// still owed complete at once, empty, and the stream ends.
func stream(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, oc *graphql.OperationContext) {
	if a, _ := oc.Stats.GetExtension(answerStat).(*answer); a != nil {
		stop := context.AfterFunc(r.Context(), func() { a.stopped.Store(true) })
		defer stop()
	}
	post := r.Clone(loader.Detach(r.Context()))
	post.Method = http.MethodPost
	post.Header.Set("Content-Type", "application/json")
	post.Body = io.NopCloser(strings.NewReader("{}"))
	sw := &streamHeaders{ResponseWriter: w, ctx: r.Context()}
	transport.MultipartMixed{Boundary: "-", DeliveryTimeout: 5 * time.Millisecond}.Do(sw, post, prepared{exec, oc})
}

// prepared is an executor whose operation is created already.
type prepared struct {
	graphql.GraphExecutor
	oc *graphql.OperationContext
}

func (p prepared) CreateOperationContext(context.Context, *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	return p.oc, nil
}

// streamHeaders sets a stream's caching headers as it begins, over those
// MultipartMixed sets (no-cache, which lets shared caches keep it): a
// stream is never kept by a shared cache, since its headers leave before
// it is known how it goes.
type streamHeaders struct {
	http.ResponseWriter
	ctx   context.Context
	begun bool
}

func (s *streamHeaders) begin() {
	if !s.begun {
		s.begun = true
		h := s.Header()
		h.Set("Vary", "Authorization, Cookie, Origin")
		h.Del("Connection") // hop-by-hop: the server manages it
		switch {
		case loader.For(s.ctx).Private():
			h.Set("Cache-Control", "private, no-store")
		case auth.ViewerID(s.ctx) != "":
			h.Set("Cache-Control", "private, no-cache")
		default:
			h.Set("Cache-Control", "no-store")
		}
	}
}

func (s *streamHeaders) WriteHeader(code int) {
	s.begin()
	s.ResponseWriter.WriteHeader(code)
}

func (s *streamHeaders) Write(b []byte) (int, error) {
	s.begin()
	return s.ResponseWriter.Write(b)
}

func (s *streamHeaders) Flush() {
	s.begin()
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *streamHeaders) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	s.begun = true
	return http.NewResponseController(s.ResponseWriter).Hijack()
}

func (s *streamHeaders) Unwrap() http.ResponseWriter { return s.ResponseWriter }

const codeNotAcceptable = "NOT_ACCEPTABLE"

// errDeferNeedsMultipart refuses @defer to a client that reads only JSON:
// its deferred parts would have nowhere to go.
func errDeferNeedsMultipart() *gqlerror.Error {
	return limitError(codeNotAcceptable, "@defer is answered in parts: send Accept: multipart/mixed;deferSpec=20220824, application/json (or remove @defer)")
}

// deferred reports whether the operation defers a fragment (@defer whose
// `if` is not false), through its fragments, each once.
func deferred(oc *graphql.OperationContext) bool {
	seen := map[string]bool{}
	var walk func(set ast.SelectionSet) bool
	defers := func(dirs ast.DirectiveList) bool {
		d := dirs.ForName("defer")
		if d == nil {
			return false
		}
		if arg := d.Arguments.ForName("if"); arg != nil {
			if v, err := arg.Value.Value(oc.Variables); err == nil {
				if b, ok := v.(bool); ok && !b {
					return false
				}
			}
		}
		return true
	}
	walk = func(set ast.SelectionSet) bool {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if walk(s.SelectionSet) {
					return true
				}
			case *ast.InlineFragment:
				if defers(s.Directives) || walk(s.SelectionSet) {
					return true
				}
			case *ast.FragmentSpread:
				if defers(s.Directives) {
					return true
				}
				if !seen[s.Name] {
					seen[s.Name] = true
					if f := oc.Doc.Fragments.ForName(s.Name); f != nil && walk(f.SelectionSet) {
						return true
					}
				}
			}
		}
		return false
	}
	return walk(oc.Operation.SelectionSet)
}

// batch runs a JSON array of operations and answers the array of their
// answers, in order. Every operation is created (parsed, validated,
// costed) before any runs, and the batch is refused whole, with nothing
// run, when their costs add up past MaxComplexity. Then they run one after
// the other (mutations in order): each through the same executor, with a
// tree stream of its own (its response ceiling counts its own trees), and
// fresh loaders after a mutation, so an operation reads what the ones
// before it wrote. Each answer is written as soon as it is done.
func (t httpTransport) batch(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, body []byte, start time.Time) {
	ctx := r.Context()
	var all []*graphql.RawParams
	if err := decodeParam("the body", string(body), &all); err != nil {
		apperr.Write(w, r, err)
		return
	}
	if err := checkBatchSize(len(all)); err != nil {
		apperr.Write(w, r, err)
		return
	}
	end := graphql.Now()
	ocs := make([]*graphql.OperationContext, len(all))
	errs := make([]gqlerror.List, len(all))
	var total int64
	for i, params := range all {
		if params == nil {
			params = &graphql.RawParams{}
		}
		params.Headers = r.Header
		params.ReadTime = graphql.TraceTiming{Start: start, End: end}
		ocs[i], errs[i] = exec.CreateOperationContext(ctx, params)
		if errs[i] == nil {
			if cost, ok := ocs[i].Stats.GetExtension(costStat).(int64); ok {
				total = addCost(total, cost)
			}
		}
	}
	if total > MaxComplexity {
		err := limitError("QUERY_TOO_COMPLEX", "the batch's complexity %s is over the limit of %d for its operations together: send fewer or smaller operations", costString(total), MaxComplexity)
		w.Header().Set("Content-Type", responseType(r))
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(requestErrorBody(exec.DispatchError(ctx, gqlerror.List{err})))
		return
	}
	w.Header().Set("Content-Type", responseType(r))
	_, _ = w.Write([]byte("["))
	mutated := false
	for i, oc := range ocs {
		if i > 0 {
			_, _ = w.Write([]byte(","))
		}
		opCtx := graphql.WithOperationContext(ctx, oc)
		switch {
		case errs[i] != nil:
			_, _ = w.Write(requestErrorBody(exec.DispatchError(opCtx, errs[i])))
			continue
		case deferred(oc):
			_, _ = w.Write(requestErrorBody(exec.DispatchError(opCtx, gqlerror.List{errDeferNeedsMultipart()})))
			continue
		case oc.Operation.Operation == ast.Subscription:
			_, _ = w.Write(requestErrorBody(exec.DispatchError(opCtx, gqlerror.List{errSubscriptionOverHTTP()})))
			continue
		}
		runCtx := ctx
		if mutated {
			var err error
			if runCtx, err = t.fresh(ctx); err != nil {
				_, _ = w.Write(requestErrorBody(exec.DispatchError(opCtx, gqlerror.List{{Message: err.Error(), Err: err}})))
				continue
			}
		}
		runCtx, st := model.WithTreeStream(runCtx)
		resp := execute(runCtx, exec, oc)
		if resp == nil { // the request ended: what is written stays unfinished
			return
		}
		b, err := json.Marshal(resp)
		if err != nil {
			apperr.LogInternal(ctx, err)
			return
		}
		_, _ = st.Writer(w).Write(b)
		mutated = mutated || oc.Operation.Operation == ast.Mutation
	}
	_, _ = w.Write([]byte("]"))
}

// checkBatchSize refuses an empty batch or one of more than MaxBatch
// operations.
func checkBatchSize(n int) error {
	switch {
	case n == 0:
		return apperr.Invalidf("the batch is empty: send at least one operation")
	case n > MaxBatch:
		return apperr.Invalidf("the batch has %d operations, more than the limit of %d a request", n, MaxBatch)
	}
	return nil
}
