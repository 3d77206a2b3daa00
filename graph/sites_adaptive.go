package graph

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// SchemaOf is a site's adaptive schema: the stored one, or the empty object
// schema. A stored schema was checked when it was written.
func SchemaOf(s *ent.Site) *adaptive.Schema {
	if s.AdaptiveSchema == nil {
		return adaptive.EmptySchema()
	}
	sch, err := adaptive.ParseSchema([]byte(*s.AdaptiveSchema))
	if err != nil {
		return adaptive.EmptySchema()
	}
	return sch
}

// SiteAdaptiveSchema is a site's adaptive schema and when it was set (the
// site's creation until then), for members who read the site.
func (r *Resolver) SiteAdaptiveSchema(ctx context.Context, orgID, siteID string) (*adaptive.Schema, time.Time, error) {
	s, _, err := visibleSite(ctx, orgID, siteID)
	if err != nil {
		return nil, time.Time{}, err
	}
	return SchemaOf(s), schemaTime(s), nil
}

func schemaTime(s *ent.Site) time.Time {
	if s.AdaptiveSchemaUpdatedAt != nil {
		return *s.AdaptiveSchemaUpdatedAt
	}
	return s.CreatedAt
}

// adaptiveError is an *adaptive.Error as a 400 naming field (prefixed to
// the error's own field).
func adaptiveError(err error, field string) error {
	var ae *adaptive.Error
	if !errors.As(err, &ae) {
		return err
	}
	if ae.Field != "" && ae.Field != "condition" {
		field += "." + ae.Field
	}
	return apperr.InvalidField(field, "%s", ae.Message)
}

// UpdateSiteAdaptiveSchema sets a site's adaptive schema. A schema that
// removes claims the site's conditions read is refused (409, naming them).
func (r *Resolver) UpdateSiteAdaptiveSchema(ctx context.Context, orgID, siteID string, raw []byte) (*adaptive.Schema, time.Time, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, time.Time{}, err
	}
	next, err := adaptive.ParseSchema(raw)
	if err != nil {
		return nil, time.Time{}, adaptiveError(err, "jsonSchema")
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		old := SchemaOf(s)
		if removed := adaptive.RemovedClaims(old, next); len(removed) > 0 {
			st, err := readSite(ctx, tx, s.ID)
			if err != nil {
				return err
			}
			var users []string
			check := func(what, id string, cond *string) {
				if cond == nil {
					return
				}
				c, err := compiledCondition(*cond, old, s)
				if err != nil {
					return
				}
				var used []string
				for _, claim := range c.Claims() {
					if slices.Contains(removed, claim) {
						used = append(used, claim)
					}
				}
				if len(used) > 0 {
					users = append(users, what+" "+id+" ("+strings.Join(used, ", ")+")")
				}
			}
			for _, sec := range st.sections {
				check("section", sec.ID, sec.Condition)
			}
			for _, ss := range st.siteSpaces {
				check("site space", ss.ID, ss.Condition)
			}
			if len(users) > 0 {
				return apperr.ConflictField("jsonSchema", "conditions use claims the new schema removes: %s", strings.Join(users, ", "))
			}
		}
		var err error
		if s, err = tx.Site.UpdateOneID(s.ID).SetAdaptiveSchema(string(next.JSON())).SetAdaptiveSchemaUpdatedAt(clock.Now()).Save(ctx); err != nil {
			return err
		}
		record(ctx, siteEvent(events.SiteAdaptiveSchemaUpdated, s, nil))
		return nil
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	r.forgetSite(ctx, s)
	return next, schemaTime(s), nil
}

// compiled keeps conditions compiled, by site, schema time and source: a
// condition is compiled once when it is written and reused by every read.
// It holds at most maxCompiled conditions and starts afresh when full.
var compiled struct {
	sync.Mutex
	m map[conditionKey]*adaptive.Condition
}

const maxCompiled = 10_000

type conditionKey struct {
	site, src string
	schema    time.Time
}

// compiledCondition is src compiled against the site's schema sch.
func compiledCondition(src string, sch *adaptive.Schema, s *ent.Site) (*adaptive.Condition, error) {
	k := conditionKey{site: s.ID, src: src, schema: schemaTime(s)}
	compiled.Lock()
	c, ok := compiled.m[k]
	compiled.Unlock()
	if ok {
		return c, nil
	}
	c, err := adaptive.Compile(src, sch)
	if err != nil {
		return nil, err
	}
	compiled.Lock()
	if compiled.m == nil || len(compiled.m) >= maxCompiled {
		compiled.m = map[conditionKey]*adaptive.Condition{}
	}
	compiled.m[k] = c
	compiled.Unlock()
	return c, nil
}

// checkSiteCondition checks a condition (nil clears) for the site: 1 to
// 1024 characters, compiled against the site's adaptive schema; errors name
// field and the position.
func checkSiteCondition(s *ent.Site, v *string, field string) error {
	if v == nil {
		return nil
	}
	if err := checkCondition(v); err != nil {
		return err
	}
	if _, err := compiledCondition(*v, SchemaOf(s), s); err != nil {
		return adaptiveError(err, field)
	}
	return nil
}
