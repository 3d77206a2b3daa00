package graph

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/graph/model"
)

// responseCeiling replaces an answer larger than max bytes (its data and
// errors as JSON) with a RESPONSE_TOO_LARGE error. The cost limit bounds
// what a query can ask for; this is the last guard, for content larger than
// its caps foresee.
type responseCeiling struct{ max int64 }

func (responseCeiling) ExtensionName() string                          { return "ResponseCeiling" }
func (responseCeiling) Validate(schema graphql.ExecutableSchema) error { return nil }

func (c responseCeiling) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || c.max <= 0 {
		return resp
	}
	size := int64(len(resp.Data))
	if len(resp.Errors) > 0 {
		b, _ := json.Marshal(resp.Errors)
		size += int64(len(b))
	}
	// Streamed page trees are place-holders in resp.Data (model.TreeStream).
	size += model.TreeBytes(ctx, c.max-size)
	if size <= c.max {
		return resp
	}
	slog.WarnContext(ctx, "graphql answer over the response ceiling", "bytes", size, "max", c.max)
	err := gqlerror.Errorf("the answer is %d bytes, more than the limit of %d: ask for fewer fields or smaller pages", size, c.max)
	err.Extensions = map[string]any{"code": "RESPONSE_TOO_LARGE"}
	return &graphql.Response{Errors: gqlerror.List{err}, Extensions: resp.Extensions}
}
