package gqlexec

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/store"
)

// The implementors gqlgen's generated code collects each object's fields
// with (fragments on these types or interfaces apply to the object); a
// test checks them against the schema.
var (
	connectionImplementors = []string{"CommentConnection"}
	edgeImplementors       = []string{"CommentEdge"}
	commentImplementors    = []string{"Comment", "Node"}
	pageInfoImplementors   = []string{"PageInfo"}
)

// CommentConnection marshals a page of comments (Product.comments). In an
// operation that runs no field middleware (runsFieldMiddleware), whose
// selection of the page holds only fields read from structs (no nodeId,
// product, viewerVote or reply, no @defer) and whose page holds no null or zero value a
// non-null field would reject, it returns one marshaller that writes the
// page's JSON in one pass, without gqlgen's field context, closures and
// field set per field and per edge: the same bytes gqlgen's generated
// marshalling writes. Otherwise it calls generated, gqlgen's generated
// marshaller (middleware, errors, nulls and resolvers keep gqlgen's
// behaviour).
func CommentConnection(ctx context.Context, sel ast.SelectionSet, v *model.CommentConnection,
	generated func(context.Context, ast.SelectionSet, *model.CommentConnection) graphql.Marshaler) graphql.Marshaler {
	oc := graphql.GetOperationContext(ctx)
	if runsFieldMiddleware(oc) {
		return generated(ctx, sel, v)
	}
	fields, ok := connectionPlans.plan(oc, sel, connectionPlan)
	if !ok || !fitsConnection(fields, v) {
		return generated(ctx, sel, v)
	}
	return &connectionJSON{fields: fields, conn: v}
}

// fieldKind is a field CommentConnection can marshal.
type fieldKind uint8

const (
	kTypename fieldKind = iota
	kEdges
	kNodes
	kPageInfo
	kTotalCount
	kCursor
	kNode
	kID
	kLanguage
	kRating
	kAuthor
	kTitle
	kBody
	kCreatedAt
	kHelpfulCount
	kUnhelpfulCount
	kVerifiedPurchase
	kHasNextPage
	kHasPreviousPage
	kStartCursor
	kEndCursor
)

// objectPlan is what CommentConnection knows of one object type: its name,
// implementors, the fields it marshals and the plan of each object field.
type objectPlan struct {
	typename     string
	implementors []string
	kinds        map[string]fieldKind
	sub          map[string]*objectPlan
}

var (
	commentPlan = &objectPlan{typename: "Comment", implementors: commentImplementors, kinds: map[string]fieldKind{
		"id": kID, "language": kLanguage, "rating": kRating, "author": kAuthor,
		"title": kTitle, "body": kBody, "createdAt": kCreatedAt,
		"helpfulCount": kHelpfulCount, "unhelpfulCount": kUnhelpfulCount, "verifiedPurchase": kVerifiedPurchase}}
	edgePlan = &objectPlan{typename: "CommentEdge", implementors: edgeImplementors,
		kinds: map[string]fieldKind{"cursor": kCursor, "node": kNode},
		sub:   map[string]*objectPlan{"node": commentPlan}}
	pageInfoPlan = &objectPlan{typename: "PageInfo", implementors: pageInfoImplementors, kinds: map[string]fieldKind{
		"hasNextPage": kHasNextPage, "hasPreviousPage": kHasPreviousPage,
		"startCursor": kStartCursor, "endCursor": kEndCursor}}
	connectionPlan = &objectPlan{typename: "CommentConnection", implementors: connectionImplementors,
		kinds: map[string]fieldKind{"edges": kEdges, "nodes": kNodes, "pageInfo": kPageInfo, "totalCount": kTotalCount},
		sub:   map[string]*objectPlan{"edges": edgePlan, "nodes": commentPlan, "pageInfo": pageInfoPlan}}
)

// plannedField is one selected field: its JSON key (the quoted alias and a
// colon, as gqlgen writes it), what it is, and its object's fields.
type plannedField struct {
	key  string
	kind fieldKind
	name string // __typename's value
	sub  []plannedField
}

// planObject collects sel's fields as gqlgen's generated code does
// (fragments, @skip and @include, merged aliases); false when one of them
// is not a field p can marshal or is deferred.
func planObject(oc *graphql.OperationContext, sel ast.SelectionSet, p *objectPlan) ([]plannedField, bool) {
	collected := graphql.CollectFields(oc, sel, p.implementors)
	out := make([]plannedField, 0, len(collected))
	for _, f := range collected {
		if f.IsDeferred() || hasKey(out, f.Alias) {
			return nil, false
		}
		pf := plannedField{key: jsonKey(f.Alias), kind: kTypename, name: p.typename}
		if f.Name != "__typename" {
			k, ok := p.kinds[f.Name]
			if !ok {
				return nil, false
			}
			pf.kind = k
			if sp := p.sub[f.Name]; sp != nil {
				if pf.sub, ok = planObject(oc, f.Selections, sp); !ok {
					return nil, false
				}
			}
		}
		out = append(out, pf)
	}
	return out, true
}

// hasKey reports whether fields already has alias's key: gqlgen writes an
// alias once; CollectFields merges repeated aliases, so this never holds,
// and the generated code decides if it does.
func hasKey(fields []plannedField, alias string) bool {
	key := jsonKey(alias)
	for _, f := range fields {
		if f.key == key {
			return true
		}
	}
	return false
}

// fieldKeys are the JSON keys of the fields the plans know, by name: the
// keys of unaliased fields, made once.
var fieldKeys = func() map[string]string {
	keys := map[string]string{"__typename": quoteKey("__typename")}
	for _, p := range []*objectPlan{connectionPlan, edgePlan, commentPlan, pageInfoPlan} {
		for name := range p.kinds {
			keys[name] = quoteKey(name)
		}
	}
	return keys
}()

// jsonKey is alias quoted as gqlgen quotes it, and a colon.
func jsonKey(alias string) string {
	if k, ok := fieldKeys[alias]; ok {
		return k
	}
	return quoteKey(alias)
}

func quoteKey(alias string) string {
	var b keyBuilder
	graphql.MarshalString(alias).MarshalGQL(&b)
	return string(append(b, ':'))
}

// keyBuilder collects bytes (an io.Writer).
type keyBuilder []byte

func (b *keyBuilder) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// fitsConnection reports whether v holds every value fields select: no
// null element, node or page info, no zero createdAt (gqlgen marshals a
// zero time as null, an error on a non-null field).
func fitsConnection(fields []plannedField, v *model.CommentConnection) bool {
	for _, f := range fields {
		switch f.kind {
		case kEdges:
			for _, e := range v.Edges {
				if e == nil || !fitsEdge(f.sub, e) {
					return false
				}
			}
		case kNodes:
			for _, c := range v.Nodes {
				if c == nil || !fitsComment(f.sub, c) {
					return false
				}
			}
		case kPageInfo:
			if v.PageInfo == nil {
				return false
			}
		}
	}
	return true
}

func fitsEdge(fields []plannedField, e *model.CommentEdge) bool {
	for _, f := range fields {
		if f.kind == kNode && (e.Node == nil || !fitsComment(f.sub, e.Node)) {
			return false
		}
	}
	return true
}

func fitsComment(fields []plannedField, c *store.Comment) bool {
	for _, f := range fields {
		if f.kind == kCreatedAt && c.CreatedAt.IsZero() {
			return false
		}
	}
	return true
}

// connectionJSON writes a planned page (CommentConnection).
type connectionJSON struct {
	fields []plannedField
	conn   *model.CommentConnection
}

// MarshalGQL writes the page as gqlgen's generated code would.
func (c *connectionJSON) MarshalGQL(w io.Writer) {
	if b, ok := w.(*bytes.Buffer); ok {
		b.Grow(c.size()) // one allocation for the page, not a doubling per 2^k bytes
	}
	newJSONWriter(w).connection(c.fields, c.conn)
}

// size is about the bytes the page takes written whole: its comments'
// strings and cursors, and room for every field name, time and number.
func (c *connectionJSON) size() int {
	const perComment = 256 // names, punctuation, the rating, the times
	n := 256               // the page's info
	for _, f := range c.fields {
		switch f.kind {
		case kEdges:
			for _, e := range c.conn.Edges {
				n += len(e.Cursor) + commentSize(e.Node) + perComment
			}
		case kNodes:
			for _, nd := range c.conn.Nodes {
				n += commentSize(nd) + perComment
			}
		}
	}
	return n
}

// commentSize is the length of a comment's strings.
func commentSize(c *store.Comment) int {
	if c == nil {
		return 0
	}
	return len(c.ID) + len(c.ProductID) + len(c.Language) + len(c.Author) + len(c.Title) + len(c.Body)
}

// jsonWriter writes JSON values to w (sw is w's WriteString); buf is
// scratch space for numbers and times.
type jsonWriter struct {
	w   io.Writer
	sw  io.StringWriter
	buf [64]byte
}

func newJSONWriter(w io.Writer) *jsonWriter {
	jw := &jsonWriter{w: w}
	if sw, ok := w.(io.StringWriter); ok {
		jw.sw = sw
	} else {
		jw.sw = stringWriter{w}
	}
	return jw
}

// stringWriter is an io.Writer's WriteString.
type stringWriter struct{ io.Writer }

func (w stringWriter) WriteString(s string) (int, error) { return io.WriteString(w.Writer, s) }

func (jw *jsonWriter) raw(s string) { _, _ = jw.sw.WriteString(s) }

// str writes s quoted as gqlgen's String and ID do: gqlgen's own quoting
// when s holds a byte it escapes, else s between quotes as it would.
func (jw *jsonWriter) str(s string) {
	if needsEscape(s) {
		graphql.MarshalString(s).MarshalGQL(jw.w)
		return
	}
	jw.raw(`"`)
	jw.raw(s)
	jw.raw(`"`)
}

// needsEscape reports whether s has a byte that a JSON string escapes:
// a control character, '"' or '\\'. It tests eight bytes at a time (a
// comment's body is read once per page it is on): for each of the three
// tests, a word's bytes less than n have their high bit set in
// (x - n·0x01…) &^ x, and none other does unless a lower byte did.
func needsEscape(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q := x ^ ones*'"'
		b := x ^ ones*'\\'
		if ((x-ones*0x20)&^x|(q-ones)&^q|(b-ones)&^b)&highs != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '\\' || c == '"' {
			return true
		}
	}
	return false
}

func (jw *jsonWriter) int(i int64) { _, _ = jw.w.Write(strconv.AppendInt(jw.buf[:0], i, 10)) }

func (jw *jsonWriter) bool(b bool) { _, _ = jw.w.Write(strconv.AppendBool(jw.buf[:0], b)) }

// time writes t as gqlgen's Time does: strconv.Quote of RFC 3339 with
// nanoseconds, whose characters never need escaping.
func (jw *jsonWriter) time(t time.Time) {
	b := append(jw.buf[:0], '"')
	b = append(t.AppendFormat(b, time.RFC3339Nano), '"')
	_, _ = jw.w.Write(b)
}

func (jw *jsonWriter) optStr(s *string) {
	if s == nil {
		jw.raw("null")
		return
	}
	jw.str(*s)
}

// object writes an object of fields in their order: __typename itself,
// any other field's value by value.
func (jw *jsonWriter) object(fields []plannedField, value func(f *plannedField)) {
	jw.raw("{")
	for i := range fields {
		f := &fields[i]
		if i > 0 {
			jw.raw(",")
		}
		jw.raw(f.key)
		if f.kind == kTypename {
			jw.str(f.name)
		} else {
			value(f)
		}
	}
	jw.raw("}")
}

// list writes a list of n elements, element i by elem.
func (jw *jsonWriter) list(n int, elem func(i int)) {
	jw.raw("[")
	for i := range n {
		if i > 0 {
			jw.raw(",")
		}
		elem(i)
	}
	jw.raw("]")
}

func (jw *jsonWriter) connection(fields []plannedField, v *model.CommentConnection) {
	jw.object(fields, func(f *plannedField) {
		switch f.kind {
		case kEdges:
			jw.list(len(v.Edges), func(i int) { jw.edge(f.sub, v.Edges[i]) })
		case kNodes:
			jw.list(len(v.Nodes), func(i int) { jw.comment(f.sub, v.Nodes[i]) })
		case kPageInfo:
			jw.pageInfo(f.sub, v.PageInfo)
		case kTotalCount:
			jw.int(int64(v.TotalCount))
		}
	})
}

func (jw *jsonWriter) edge(fields []plannedField, e *model.CommentEdge) {
	jw.object(fields, func(f *plannedField) {
		switch f.kind {
		case kCursor:
			jw.str(e.Cursor)
		case kNode:
			jw.comment(f.sub, e.Node)
		}
	})
}

func (jw *jsonWriter) comment(fields []plannedField, c *store.Comment) {
	jw.object(fields, func(f *plannedField) {
		switch f.kind {
		case kID:
			jw.str(c.ID)
		case kLanguage:
			jw.str(c.Language)
		case kRating:
			jw.int(int64(c.Rating))
		case kAuthor:
			jw.str(c.Author)
		case kTitle:
			jw.str(c.Title)
		case kBody:
			jw.str(c.Body)
		case kCreatedAt:
			jw.time(c.CreatedAt)
		case kHelpfulCount:
			jw.int(c.HelpfulCount)
		case kUnhelpfulCount:
			jw.int(c.UnhelpfulCount)
		case kVerifiedPurchase:
			jw.bool(c.VerifiedPurchase)
		}
	})
}

func (jw *jsonWriter) pageInfo(fields []plannedField, p *model.PageInfo) {
	jw.object(fields, func(f *plannedField) {
		switch f.kind {
		case kHasNextPage:
			jw.bool(p.HasNextPage)
		case kHasPreviousPage:
			jw.bool(p.HasPreviousPage)
		case kStartCursor:
			jw.optStr(p.StartCursor)
		case kEndCursor:
			jw.optStr(p.EndCursor)
		}
	})
}
