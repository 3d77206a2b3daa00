package graph

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
)

// Aggregates of a site's insights events (aggregateSiteEvents): GitBook's
// SiteInsightsQueryEventsAggregation, computed by one SQL statement over
// the (site_id, timestamp) index, grouped by the columns asked for, on
// SQLite and PostgreSQL alike (times group by the integer hour, month and
// weekday columns stored with each event, not by dialect functions).

// Bounds of an aggregation.
const (
	maxInsightsRows    = 1000 // GitBook's limit maximum
	maxInsightsColumns = 10   // select and groupBy together
	maxInsightsFilters = 20
	maxInsightsValues  = 100 // values of one filter
	maxInsightsRange   = 366 * 24 * time.Hour
	// segmentsRange is the window visitor segments are computed over;
	// maxSegments the most segments listed (the busiest).
	segmentsRange = 30 * 24 * time.Hour
	maxSegments   = 100
)

// nullMode says what a dimension answers for events without a value.
type nullMode int

const (
	nullAsNull  nullMode = iota // null (the reference's type allows it)
	nullAsEmpty                 // "" (referrers and campaigns: direct traffic)
	nullSkipped                 // events without a value are left out (queries, ratings, links)
)

// insightsDim is a column events are grouped by.
type insightsDim struct {
	exprs []string // SQL expressions selected (two for page and link targets)
	null  nullMode
	kind  string // "string", "int", "bool", "time"
}

// insightsMetric is a column computed over each group.
type insightsMetric struct{ exprs []string }

var insightsDims = map[string]insightsDim{
	"dayOfWeek":                 {exprs: []string{"day_of_week"}, kind: "int"},
	"hourOfDay":                 {exprs: []string{"hour_of_day"}, kind: "int"},
	"url":                       {exprs: []string{"url"}, kind: "string"},
	"urlPath":                   {exprs: []string{"url_path"}, kind: "string"},
	"eventType":                 {exprs: []string{"type"}, kind: "string"},
	"siteSection":               {exprs: []string{"site_section_id"}, kind: "string"},
	"siteSpace":                 {exprs: []string{"site_space_id"}, kind: "string"},
	"siteShareKey":              {exprs: []string{"site_share_key_id"}, kind: "string"},
	"displayContext":            {exprs: []string{"display_context"}, kind: "string"},
	"page":                      {exprs: []string{"space_id", "page_id"}, kind: "page"},
	"visitorLanguage":           {exprs: []string{"language"}, kind: "string"},
	"visitorAuthenticated":      {exprs: []string{"visitor_authenticated"}, kind: "bool"},
	"eventSearchQuery":          {exprs: []string{"query"}, kind: "string", null: nullSkipped},
	"eventSearchResultRecordId": {exprs: []string{"result_record_id"}, kind: "string"},
	"eventPageFeedbackRating":   {exprs: []string{"feedback_rating"}, kind: "string", null: nullSkipped},
	"eventPageFeedbackComment":  {exprs: []string{"feedback_comment"}, kind: "string", null: nullSkipped},
	"eventAskResponseRating":    {exprs: []string{"ask_rating"}, kind: "int", null: nullSkipped},
	"eventLinkTargetKind":       {exprs: []string{"link_target_kind"}, kind: "string", null: nullSkipped},
	"eventLinkTargetValue":      {exprs: []string{"link_target_kind", "link_target_value"}, kind: "link", null: nullSkipped},
	"eventLinkTargetDomain":     {exprs: []string{"link_target_domain"}, kind: "string"},
	"eventLinkPosition":         {exprs: []string{"link_position"}, kind: "string", null: nullSkipped},
	"referrer":                  {exprs: []string{"referrer"}, kind: "string", null: nullAsEmpty},
	"referrerDomain":            {exprs: []string{"referrer_domain"}, kind: "string", null: nullAsEmpty},
	"utmSource":                 {exprs: []string{"utm_source"}, kind: "string", null: nullAsEmpty},
	"utmMedium":                 {exprs: []string{"utm_medium"}, kind: "string", null: nullAsEmpty},
	"utmCampaign":               {exprs: []string{"utm_campaign"}, kind: "string", null: nullAsEmpty},
	"utmTerm":                   {exprs: []string{"utm_term"}, kind: "string", null: nullAsEmpty},
	"utmContent":                {exprs: []string{"utm_content"}, kind: "string", null: nullAsEmpty},
}

var insightsMetrics = map[string]insightsMetric{
	"eventsCount":   {exprs: []string{"COUNT(*)"}},
	"sessionsCount": {exprs: []string{"COUNT(DISTINCT session_hash)"}},
	"visitorsCount": {exprs: []string{"COUNT(DISTINCT visitor_hash)"}},
	"pageFeedbackRating": {exprs: []string{
		"SUM(CASE WHEN feedback_rating = 'ok' THEN 1 ELSE 0 END)",
		"SUM(CASE WHEN feedback_rating = 'good' THEN 1 ELSE 0 END)",
		"SUM(CASE WHEN feedback_rating = 'bad' THEN 1 ELSE 0 END)"}},
	"askResponseRating": {exprs: []string{
		"SUM(CASE WHEN ask_rating = 1 THEN 1 ELSE 0 END)",
		"SUM(CASE WHEN ask_rating = -1 THEN 1 ELSE 0 END)"}},
}

// notRecorded are GitBook's columns Folio keeps nothing for: no location,
// device or browser is derived (nothing about the visitor's address or
// user agent is kept), and there are no ads, trademarks, llms.txt
// variants or API clients to measure.
var notRecorded = map[string]bool{
	"visitorGeoCountry": true, "visitorGeoPoint": true, "visitorDevice": true, "visitorBrowser": true,
	"visitorOS": true, "visitorBot": true, "visitorClaimProperty": true, "visitorClaim": true,
	"eventAPIOperationPath": true, "eventAPIOperationMethod": true, "eventLLMSVariant": true,
	"eventPageNotFoundType": true, "eventMarkdownSource": true, "eventAdDomain": true,
	"eventAdPlacement": true, "eventTrademarkPlacement": true,
}

// datetimeExprs group by an interval of UTC time: hour is hours since the
// epoch; days, Monday-first weeks (1970-01-01 was a Thursday) and months
// follow from the stored integers.
var datetimeExprs = map[string]string{
	"hour":  "hour",
	"day":   "(hour / 24)",
	"week":  "((hour / 24) - (((hour / 24) + 3) % 7))",
	"month": "month",
}

// insightsColumnJSON is a SiteInsightsQueryEventsColumn.
type insightsColumnJSON struct {
	Column   *string `json:"column"`
	Interval *string `json:"interval"`
}

// insightsFilterJSON is a SiteInsightsQueryEventsFilter.
type insightsFilterJSON struct {
	Column   *string           `json:"column"`
	Values   []json.RawMessage `json:"values"`
	Operator *string           `json:"operator"`
}

// insightsQueryJSON is GitBook's SiteInsightsQueryEventsAggregation.
type insightsQueryJSON struct {
	Select  []insightsColumnJSON `json:"select"`
	Where   []insightsFilterJSON `json:"where"`
	GroupBy []insightsColumnJSON `json:"groupBy"`
	Order   *struct {
		By        *insightsColumnJSON `json:"by"`
		Direction *string             `json:"direction"`
	} `json:"order"`
	Range json.RawMessage `json:"range"`
	Limit *int            `json:"limit"`
}

// outColumn is a column of the answer.
type outColumn struct {
	name     string
	interval string // datetime's
	dim      *insightsDim
	metric   *insightsMetric
	first    int // index of its first expression among the selected ones
}

// AggregateSiteEvents runs an aggregation (GitBook's
// SiteInsightsQueryEventsAggregation, as JSON) over a site's events for a
// member who may read its insights. The answer has a column per groupBy
// column, then per select column not already grouped, each with one value
// per group, in the query's order.
func (r *Resolver) AggregateSiteEvents(ctx context.Context, orgID, siteID string, raw json.RawMessage) (*model.SiteInsightsResult, error) {
	s, err := insightsSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	var q insightsQueryJSON
	if err := json.Unmarshal(raw, &q); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, apperr.InvalidField(te.Field, "must be %s", jsonKind(te.Type.Kind().String()))
		}
		return nil, apperr.Invalidf("the aggregation must be a JSON object")
	}
	from, to, err := insightsRange(q.Range)
	if err != nil {
		return nil, err
	}
	limit := maxInsightsRows
	if q.Limit != nil {
		if *q.Limit < 1 || *q.Limit > maxInsightsRows {
			return nil, apperr.InvalidField("limit", "must be between 1 and %d", maxInsightsRows)
		}
		limit = *q.Limit
	}
	if len(q.Select)+len(q.GroupBy) > maxInsightsColumns {
		return nil, apperr.InvalidField("select", "select and groupBy name at most %d columns together", maxInsightsColumns)
	}
	if len(q.Select) == 0 {
		q.Select = []insightsColumnJSON{{Column: ptr("eventsCount")}}
	}
	var cols []*outColumn
	seen := map[string]bool{}
	add := func(field string, c insightsColumnJSON, grouping bool) error {
		oc, err := insightsColumn(field, c, grouping)
		if err != nil {
			return err
		}
		key := oc.name + "/" + oc.interval
		if !seen[key] {
			seen[key] = true
			cols = append(cols, oc)
		}
		return nil
	}
	for i, c := range q.GroupBy {
		if err := add(fmt.Sprintf("groupBy[%d]", i), c, true); err != nil {
			return nil, err
		}
	}
	for i, c := range q.Select {
		if err := add(fmt.Sprintf("select[%d]", i), c, false); err != nil {
			return nil, err
		}
	}

	b := &sqlBuilder{postgres: r.Dialect == "postgres"}
	var selects, groups, skips []string
	for _, c := range cols {
		c.first = len(selects)
		switch {
		case c.name == "datetime":
			selects, groups = append(selects, datetimeExprs[c.interval]), append(groups, datetimeExprs[c.interval])
		case c.dim != nil:
			for _, e := range c.dim.exprs {
				groups = append(groups, e)
				if c.dim.null == nullAsEmpty {
					e = "COALESCE(" + e + ", '')"
				}
				selects = append(selects, e)
			}
			if c.dim.null == nullSkipped {
				skips = append(skips, c.dim.exprs[len(c.dim.exprs)-1]+" IS NOT NULL")
			}
		default:
			selects = append(selects, c.metric.exprs...)
		}
	}
	where := []string{"site_id = " + b.arg(s.ID), "timestamp >= " + b.arg(from), "timestamp < " + b.arg(to)}
	where = append(where, skips...)
	if len(q.Where) > maxInsightsFilters {
		return nil, apperr.InvalidField("where", "at most %d filters", maxInsightsFilters)
	}
	for i, f := range q.Where {
		cond, err := insightsFilter(b, fmt.Sprintf("where[%d]", i), f)
		if err != nil {
			return nil, err
		}
		where = append(where, cond)
	}
	order, err := insightsOrder(q, cols, selects)
	if err != nil {
		return nil, err
	}
	stmt := "SELECT " + strings.Join(selects, ", ") + " FROM site_events WHERE " + strings.Join(where, " AND ")
	if len(groups) > 0 {
		stmt += " GROUP BY " + strings.Join(groups, ", ")
	}
	if len(order) > 0 {
		stmt += " ORDER BY " + strings.Join(order, ", ")
	}
	stmt += " LIMIT " + strconv.Itoa(limit)

	rows, err := r.Client.QueryContext(ctx, stmt, b.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &model.SiteInsightsResult{Columns: make([]*model.SiteInsightsColumn, len(cols))}
	for i, c := range cols {
		out.Columns[i] = &model.SiteInsightsColumn{Column: c.name, Values: []any{}}
	}
	for rows.Next() {
		vals := make([]any, len(selects))
		ptrs := make([]any, len(selects))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, c := range cols {
			out.Columns[i].Values = append(out.Columns[i].Values, c.value(vals[c.first:]))
		}
	}
	return out, rows.Err()
}

// insightsColumn reads a column of select or groupBy.
func insightsColumn(field string, c insightsColumnJSON, grouping bool) (*outColumn, error) {
	if c.Column == nil {
		return nil, apperr.InvalidField(field+".column", "is required")
	}
	name := *c.Column
	if name == "datetime" {
		iv := "day"
		if c.Interval != nil {
			iv = *c.Interval
		}
		if _, ok := datetimeExprs[iv]; !ok {
			return nil, apperr.InvalidField(field+".interval", "must be hour, day, week or month")
		}
		return &outColumn{name: name, interval: iv}, nil
	}
	if d, ok := insightsDims[name]; ok {
		return &outColumn{name: name, dim: &d}, nil
	}
	if m, ok := insightsMetrics[name]; ok {
		if grouping {
			return nil, apperr.InvalidField(field+".column", "%s is computed over groups: select it instead", name)
		}
		return &outColumn{name: name, metric: &m}, nil
	}
	if notRecorded[name] {
		return nil, apperr.InvalidField(field+".column", "%s is not recorded by Folio (no location, device, browser or claim property is kept)", name)
	}
	return nil, apperr.InvalidField(field+".column", "unknown column %q", name)
}

// value is the column's answer for one row, from its selected values.
func (c *outColumn) value(v []any) any {
	switch {
	case c.name == "datetime":
		n := toInt(v[0])
		switch c.interval {
		case "hour":
			return time.Unix(n*3600, 0).UTC().Format(time.RFC3339)
		case "month":
			return time.Date(int(n/12), time.Month(n%12+1), 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
		}
		return time.Unix(n*86400, 0).UTC().Format(time.RFC3339)
	case c.metric != nil:
		switch c.name {
		case "pageFeedbackRating":
			return map[string]any{"ok": toInt(v[0]), "good": toInt(v[1]), "bad": toInt(v[2])}
		case "askResponseRating":
			return map[string]any{"positive": toInt(v[0]), "negative": toInt(v[1])}
		}
		return toInt(v[0])
	}
	switch c.dim.kind {
	case "page":
		if v[0] == nil {
			return nil
		}
		var page any
		if v[1] != nil {
			page = toString(v[1])
		}
		return map[string]any{"space": toString(v[0]), "page": page}
	case "link":
		kind := toString(v[0])
		key := map[string]string{"reusable-content": "reusableContent"}[kind]
		if key == "" {
			key = kind
		}
		return map[string]any{"kind": kind, key: toString(v[1])}
	}
	if v[0] == nil {
		return nil
	}
	switch c.dim.kind {
	case "int":
		return toInt(v[0])
	case "bool":
		switch b := v[0].(type) {
		case bool:
			return b
		default:
			return toInt(b) != 0
		}
	}
	return toString(v[0])
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case int:
		return int64(n)
	case float64:
		return int64(n)
	case []byte:
		i, _ := strconv.ParseInt(string(n), 10, 64)
		return i
	case string:
		i, _ := strconv.ParseInt(n, 10, 64)
		return i
	}
	return 0
}

func toString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// insightsRange reads a preset or {from, to}.
func insightsRange(raw json.RawMessage) (time.Time, time.Time, error) {
	now := clock.Now()
	if len(raw) == 0 || string(raw) == "null" {
		return now, now, apperr.InvalidField("range", "is required: a preset (last7Days…) or {from, to}")
	}
	var preset string
	if json.Unmarshal(raw, &preset) == nil {
		switch preset {
		case "last24Hours":
			return now.Add(-24 * time.Hour), now.Add(time.Millisecond), nil
		case "last7Days":
			return now.AddDate(0, 0, -7), now.Add(time.Millisecond), nil
		case "last30Days":
			return now.AddDate(0, 0, -30), now.Add(time.Millisecond), nil
		case "last3Months":
			return now.AddDate(0, -3, 0), now.Add(time.Millisecond), nil
		case "lastYear":
			return now.AddDate(-1, 0, 0), now.Add(time.Millisecond), nil
		}
		return now, now, apperr.InvalidField("range", "must be lastYear, last3Months, last30Days, last7Days, last24Hours or {from, to}")
	}
	var c struct{ From, To *time.Time }
	if err := json.Unmarshal(raw, &c); err != nil || c.From == nil || c.To == nil {
		return now, now, apperr.InvalidField("range", "must be a preset or {from, to} with RFC 3339 date-times")
	}
	if !c.From.Before(*c.To) {
		return now, now, apperr.InvalidField("range.to", "must be after range.from")
	}
	if c.To.Sub(*c.From) > maxInsightsRange {
		return now, now, apperr.InvalidField("range", "must span at most 366 days")
	}
	return c.From.UTC(), c.To.UTC(), nil
}

// insightsFilter is a where clause's SQL condition.
func insightsFilter(b *sqlBuilder, field string, f insightsFilterJSON) (string, error) {
	if f.Column == nil {
		return "", apperr.InvalidField(field+".column", "is required")
	}
	name := *f.Column
	op := "in"
	if f.Operator != nil {
		op = *f.Operator
	}
	if len(f.Values) == 0 || len(f.Values) > maxInsightsValues {
		return "", apperr.InvalidField(field+".values", "must hold 1 to %d values", maxInsightsValues)
	}
	vfield := func(i int) string { return fmt.Sprintf("%s.values[%d]", field, i) }
	switch op {
	case "in", "notIn":
	case "greaterThan", "greaterThanOrEqual", "lessThan", "lessThanOrEqual":
		if len(f.Values) != 1 {
			return "", apperr.InvalidField(field+".values", "%s compares with one value", op)
		}
		sym := map[string]string{"greaterThan": ">", "greaterThanOrEqual": ">=", "lessThan": "<", "lessThanOrEqual": "<="}[op]
		switch name {
		case "datetime":
			var t time.Time
			if json.Unmarshal(f.Values[0], &t) != nil {
				return "", apperr.InvalidField(vfield(0), "must be an RFC 3339 date-time")
			}
			return "timestamp " + sym + " " + b.arg(t.UTC()), nil
		case "dayOfWeek", "hourOfDay", "eventAskResponseRating":
			var n int64
			if json.Unmarshal(f.Values[0], &n) != nil {
				return "", apperr.InvalidField(vfield(0), "must be an integer")
			}
			return insightsDims[name].exprs[0] + " " + sym + " " + b.arg(n), nil
		}
		return "", apperr.InvalidField(field+".operator", "%s compares datetime, dayOfWeek, hourOfDay and eventAskResponseRating only", op)
	default:
		return "", apperr.InvalidField(field+".operator", "must be in, notIn, greaterThan, greaterThanOrEqual, lessThan or lessThanOrEqual")
	}
	d, ok := insightsDims[name]
	if !ok {
		if name == "datetime" {
			return "", apperr.InvalidField(field+".operator", "datetime is filtered with greaterThan, lessThan and their OrEqual forms")
		}
		if _, err := insightsColumn(field, insightsColumnJSON{Column: &name}, true); err != nil {
			return "", err
		}
	}
	var terms []string
	hasNull := false
	for i, raw := range f.Values {
		if string(raw) == "null" {
			hasNull = true
			continue
		}
		switch d.kind {
		case "page":
			var p struct {
				Page  *string `json:"page"`
				Space *string `json:"space"`
			}
			if json.Unmarshal(raw, &p) != nil || p.Space == nil {
				return "", apperr.InvalidField(vfield(i), "must be {page, space} or null")
			}
			t := "(space_id = " + b.arg(*p.Space)
			if p.Page == nil {
				t += " AND page_id IS NULL)"
			} else {
				t += " AND page_id = " + b.arg(*p.Page) + ")"
			}
			terms = append(terms, t)
		case "link":
			var ref map[string]any
			if json.Unmarshal(raw, &ref) != nil {
				return "", apperr.InvalidField(vfield(i), "must be a content reference")
			}
			kind, value, _, err := linkTarget(ref)
			if err != nil {
				return "", apperr.InvalidField(vfield(i), "%s", err)
			}
			terms = append(terms, "(link_target_kind = "+b.arg(*kind)+" AND link_target_value = "+b.arg(*value)+")")
		case "int":
			var n int64
			if json.Unmarshal(raw, &n) != nil {
				return "", apperr.InvalidField(vfield(i), "must be an integer or null")
			}
			terms = append(terms, d.exprs[0]+" = "+b.arg(n))
		case "bool":
			var v bool
			if json.Unmarshal(raw, &v) != nil {
				return "", apperr.InvalidField(vfield(i), "must be a boolean or null")
			}
			terms = append(terms, d.exprs[0]+" = "+b.arg(v))
		default:
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return "", apperr.InvalidField(vfield(i), "must be a string or null")
			}
			if d.null == nullAsEmpty && v == "" {
				hasNull = true
				continue
			}
			terms = append(terms, d.exprs[0]+" = "+b.arg(v))
		}
	}
	col := d.exprs[len(d.exprs)-1]
	if d.kind == "page" {
		col = "space_id"
	}
	if hasNull {
		terms = append(terms, col+" IS NULL")
	}
	cond := "(" + strings.Join(terms, " OR ") + ")"
	if op == "notIn" {
		cond = "NOT " + cond
		if !hasNull {
			// NOT (x = v) is unknown for a null x: events without a
			// value are not in the list, so they stay.
			cond = "(" + col + " IS NULL OR " + cond + ")"
		}
	}
	return cond, nil
}

// insightsOrder is the ORDER BY: the query's order, then every grouped
// column (times ascending), so that equal rows come in the same order on
// both databases. Nulls sort last on both.
func insightsOrder(q insightsQueryJSON, cols []*outColumn, selects []string) ([]string, error) {
	var order []string
	by := func(c *outColumn, desc bool) {
		dir := ""
		if desc {
			dir = " DESC"
		}
		for i := c.first; i < c.first+exprCount(c); i++ {
			e := selects[i]
			if c.dim != nil && c.dim.null == nullAsNull {
				order = append(order, "("+e+" IS NULL)")
			}
			order = append(order, e+dir)
		}
	}
	if q.Order != nil {
		if q.Order.By == nil || q.Order.By.Column == nil {
			return nil, apperr.InvalidField("order.by.column", "is required")
		}
		desc := false
		if q.Order.Direction != nil {
			switch *q.Order.Direction {
			case "asc":
			case "desc":
				desc = true
			default:
				return nil, apperr.InvalidField("order.direction", "must be asc or desc")
			}
		}
		var found *outColumn
		for _, c := range cols {
			if c.name == *q.Order.By.Column && (c.name != "datetime" || q.Order.By.Interval == nil || *q.Order.By.Interval == c.interval) {
				found = c
				break
			}
		}
		if found == nil {
			return nil, apperr.InvalidField("order.by.column", "must be one of the selected or grouped columns")
		}
		if found.metric != nil && len(found.metric.exprs) > 1 {
			return nil, apperr.InvalidField("order.by.column", "%s is not ordered: order by eventsCount", found.name)
		}
		by(found, desc)
	} else {
		// Times ascending (a trend), else the biggest groups first.
		for _, c := range cols {
			if c.name == "datetime" {
				by(c, false)
			}
		}
		for _, c := range cols {
			if c.metric != nil && len(c.metric.exprs) == 1 {
				by(c, true)
				break
			}
		}
	}
	for _, c := range cols {
		if c.metric == nil {
			by(c, false)
		}
	}
	return order, nil
}

func exprCount(c *outColumn) int {
	switch {
	case c.name == "datetime":
		return 1
	case c.dim != nil:
		return len(c.dim.exprs)
	}
	return len(c.metric.exprs)
}

// sqlBuilder collects a statement's arguments in the dialect's placeholders.
type sqlBuilder struct {
	postgres bool
	args     []any
}

func (b *sqlBuilder) arg(v any) string {
	b.args = append(b.args, v)
	if b.postgres {
		return "$" + strconv.Itoa(len(b.args))
	}
	return "?"
}

// SiteVisitorSegments are the groups of a site's visitors of the last 30
// days by the claims they came with (visitor-auth tokens and adaptive
// content's unsigned claims), busiest first: "Anonymous visitors" for
// events without claims. At most 100.
func (r *Resolver) SiteVisitorSegments(ctx context.Context, orgID, siteID string) ([]*model.SiteVisitorSegment, error) {
	s, err := insightsSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	b := &sqlBuilder{postgres: r.Dialect == "postgres"}
	stmt := "SELECT visitor_claims, COUNT(*), COUNT(DISTINCT visitor_hash), COUNT(DISTINCT session_hash) FROM site_events WHERE site_id = " +
		b.arg(s.ID) + " AND timestamp >= " + b.arg(clock.Now().Add(-segmentsRange)) +
		" GROUP BY visitor_claims ORDER BY COUNT(*) DESC, (visitor_claims IS NULL), visitor_claims LIMIT " + strconv.Itoa(maxSegments)
	rows, err := r.Client.QueryContext(ctx, stmt, b.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.SiteVisitorSegment{}
	for rows.Next() {
		var claims sql.NullString
		seg := &model.SiteVisitorSegment{}
		if err := rows.Scan(&claims, &seg.Events, &seg.Visitors, &seg.Sessions); err != nil {
			return nil, err
		}
		c := map[string]any{}
		if claims.Valid {
			_ = json.Unmarshal([]byte(claims.String), &c)
		}
		seg.Claims, seg.Title = c, segmentTitle(c)
		out = append(out, seg)
	}
	return out, rows.Err()
}

// segmentTitle names a segment by its claims: "plan=pro, unsigned.beta=true".
func segmentTitle(claims map[string]any) string {
	if len(claims) == 0 {
		return "Anonymous visitors"
	}
	var parts []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sub, ok := m[k].(map[string]any); ok {
				walk(prefix+k+".", sub)
				continue
			}
			b, _ := json.Marshal(m[k])
			v := strings.Trim(string(b), `"`)
			parts = append(parts, prefix+k+"="+v)
		}
	}
	walk("", claims)
	return clipText(strings.Join(parts, ", "), 128)
}
