package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/acme/comments-gateway/cost"
	"github.com/acme/comments-gateway/internal/bytecache"
	"github.com/acme/comments-gateway/metrics"
)

// CostLimit measures every operation with package cost and refuses it,
// before gqlgen parses or validates it, when it is over a limit: deeper than
// MaxDepth, more aliases than MaxAliases, more expanded fields in the
// document than MaxSelections, more _entities representations than
// MaxEntities, or more complex than MaxComplexity. Each limit is its own
// comparison, message and code (4xx).
//
// It runs as gqlgen's last operation-parameter mutator (after APQ has put
// the query text in place), which gqlgen calls before it parses, validates
// and coerces variables. It parses the text itself, once per distinct
// document: documents, the measures of their variable-free operations and
// those of recent variables (costvars.go) are kept in one cache bounded in
// bytes (QueryCaches.CostBytes), a document under the sha256 of its text
// (the APQ key), so an operation seen before costs a hash and a lookup
// (texts up to QueryCaches.MaxQueryBytes). Complexity needs the
// operation's variables coerced; CostLimit coerces them with gqlparser's
// own VariableValues, as gqlgen will. When that fails (gqlgen will refuse
// the request for it), the complexity is measured again after validation,
// on gqlgen's variables, and checked there.
type CostLimit struct {
	lim     Limits
	es      graphql.ExecutableSchema
	schema  *ast.Schema
	cache   *bytecache.Cache[costEntry]
	maxText int64 // longest text cached
}

// costEntry is an entry of CostLimit's cache: a document (under its key)
// or the measure of an operation with variables (under variablesKey's).
type costEntry struct {
	doc     *costDoc
	measure operationCost
}

// costDoc is a parsed document (its text, and its key in the cache, empty
// when the text is too long to keep) and the measures of its variable-free
// operations, by operation name.
type costDoc struct {
	text     string
	key      string
	doc      *ast.QueryDocument
	measured sync.Map // operation name → operationCost
}

// operationCost is what CostLimit measured of a request's operation.
type operationCost struct {
	cost.Result
	// Known: Complexity was measured with the request's coerced variables.
	Known bool
}

const costExtension = "Cost"

// NewCostLimit returns the cost limit of lim on the operations of es, its
// cache bounded by q.CostBytes (counted in m's cache metrics; nil m: not
// counted).
func NewCostLimit(lim Limits, es graphql.ExecutableSchema, q QueryCaches, m *metrics.Collectors) *CostLimit {
	c := &CostLimit{lim: lim, es: es, schema: es.Schema(), maxText: q.MaxQueryBytes}
	c.cache = newQueryCache("cost", q.CostBytes, 0, q.MaxQueryBytes, m,
		func(_ string, e costEntry) string { return e.text() },
		func(_ string, e costEntry) int64 { return e.weight() })
	return c
}

// text is the document text of a document's entry ("" for a measure's).
func (e costEntry) text() string {
	if e.doc == nil {
		return ""
	}
	return e.doc.text
}

// weight is what the entry keeps besides its key: a parsed document (the
// measures of its variable-free operations, one per operation, are within
// the estimate's bytes per token), or a measure.
func (e costEntry) weight() int64 {
	if e.doc == nil {
		return int64(unsafe.Sizeof(e))
	}
	return documentBytes(e.doc.text)
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
} = (*CostLimit)(nil)

// ExtensionName names the extension for gqlgen.
func (*CostLimit) ExtensionName() string { return "CostLimit" }

// Validate accepts any schema.
func (*CostLimit) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters measures the operation before gqlgen parses it.
// A document that does not parse is left to gqlgen, which reports why.
func (c *CostLimit) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if p.Query == "" {
		return nil
	}
	d := c.document(ctx, p.Query)
	if d == nil {
		return nil
	}
	oc := c.measure(ctx, d, p)
	if octx := graphql.GetOperationContext(ctx); octx != nil {
		octx.Stats.SetExtension(costExtension, &oc)
	}
	return c.check(oc)
}

// measure is the measure of p's operation in d: kept in d, or measured
// now with p's variables coerced (and kept in d).
func (c *CostLimit) measure(ctx context.Context, d *costDoc, p *graphql.RawParams) operationCost {
	if m, ok := d.measured.Load(p.OperationName); ok {
		return m.(operationCost)
	}
	op := d.doc.Operations.ForName(p.OperationName)
	withVars := op != nil && len(op.VariableDefinitions) > 0
	key, keep := "", withVars && d.key != ""
	if keep {
		key, keep = variablesKey(d.key, p.OperationName, p.Variables)
	}
	if keep {
		if e, ok := c.cache.Get(ctx, key); ok {
			return e.measure
		}
	}
	vars, coerced := coerceVariables(c.schema, op, p.Variables)
	m := operationCost{Result: cost.Analyze(ctx, c.schema, d.doc, op, vars, c.fieldCost), Known: coerced}
	switch {
	case op != nil && !withVars:
		// Keyed by the names of d's operations only: a name the client
		// made up (op nil) would grow d without bound.
		d.measured.Store(p.OperationName, m)
	case keep:
		c.cache.Add(ctx, key, costEntry{measure: m})
	}
	return m
}

// MutateOperationContext checks the complexity after validation when it
// could not be measured before (the variables did not coerce then).
func (c *CostLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if m := costOf(oc); m != nil && m.Known {
		return nil
	}
	m := &operationCost{Result: cost.Analyze(ctx, c.schema, oc.Doc, oc.Operation, oc.Variables, c.fieldCost), Known: true}
	oc.Stats.SetExtension(costExtension, m)
	return c.check(*m)
}

// fieldCost is the schema's custom complexity, as package cost calls it
// before validation. gqlgen's generated argument parsing assumes a valid
// document (an input object given as `5` panics in it), so a panic counts
// as no custom cost: validation refuses that document anyway.
func (c *CostLimit) fieldCost(ctx context.Context, typeName, field string, child int, args map[string]any) (n int, ok bool) {
	defer func() {
		if recover() != nil {
			n, ok = 0, false
		}
	}()
	return c.es.Complexity(ctx, typeName, field, child, args)
}

// document is the parsed query, from the cache or parsed now (nil when it
// does not parse). The variables' types are resolved on the document once,
// as validation would, so gqlparser can coerce variables before validation.
func (c *CostLimit) document(ctx context.Context, query string) *costDoc {
	var key string
	if int64(len(query)) <= c.maxText {
		sum := sha256.Sum256([]byte(query))
		key = hex.EncodeToString(sum[:])
		if e, ok := c.cache.Get(ctx, key); ok && e.doc != nil {
			return e.doc
		}
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, c.lim.MaxTokens)
	if err != nil {
		return nil
	}
	for _, op := range doc.Operations {
		for _, v := range op.VariableDefinitions {
			v.Definition = c.schema.Types[v.Type.Name()]
		}
	}
	d := &costDoc{text: query, key: key, doc: doc}
	if key != "" {
		c.cache.Add(ctx, key, costEntry{doc: d})
	}
	return d
}

// coerceVariables coerces raw variables as gqlgen will after validation;
// ok is false when they do not coerce (or the operation is not valid enough
// to say), and the request will be refused for it.
func coerceVariables(schema *ast.Schema, op *ast.OperationDefinition, raw map[string]any) (vars map[string]any, ok bool) {
	if op == nil {
		return nil, true
	}
	for _, v := range op.VariableDefinitions {
		if v.Definition == nil {
			return nil, false
		}
	}
	// The operation is not validated yet: a document gqlparser did not
	// expect must not take the request down.
	defer func() {
		if recover() != nil {
			vars, ok = nil, false
		}
	}()
	vars, err := validator.VariableValues(schema, op, raw)
	return vars, err == nil
}

// check compares each measure with its limit, in a fixed order.
func (c *CostLimit) check(m operationCost) *gqlerror.Error {
	refuse := func(code, format string, args ...any) *gqlerror.Error {
		err := gqlerror.Errorf(format, args...)
		errcode.Set(err, code)
		return err
	}
	l := c.lim
	switch {
	case m.Depth > l.MaxDepth:
		return refuse(CodeDepth, "the operation is nested %d levels deep; the limit is %d", m.Depth, l.MaxDepth)
	case m.Aliases > l.MaxAliases:
		return refuse(CodeAliases, "the operation has %d aliased fields (fragments expanded); the limit is %d", m.Aliases, l.MaxAliases)
	case m.DocumentFields > l.MaxSelections:
		return refuse(CodeSelections, "the document selects %d fields once its fragments are expanded; the limit is %d", m.DocumentFields, l.MaxSelections)
	case m.Entities > l.MaxEntities:
		return refuse(CodeEntities, "the operation asks _entities for %d representations; the limit is %d", m.Entities, l.MaxEntities)
	case m.Known && m.Complexity > l.MaxComplexity:
		return refuse(CodeComplexity, "operation has complexity %d, which exceeds the limit of %d", m.Complexity, l.MaxComplexity)
	}
	return nil
}

// costOf is what CostLimit measured of the operation (nil before it ran).
func costOf(oc *graphql.OperationContext) *operationCost {
	if oc == nil {
		return nil
	}
	m, _ := oc.Stats.GetExtension(costExtension).(*operationCost)
	return m
}

// MeasuredComplexity is the operation's complexity as CostLimit measured
// it (0 before it ran): what the live transport charges a subscription.
func MeasuredComplexity(oc *graphql.OperationContext) int {
	if m := costOf(oc); m != nil {
		return m.Complexity
	}
	return 0
}
