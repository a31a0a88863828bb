package gqlexec

import (
	"bytes"
	"context"
	"io"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/graph/model"
)

// PageResolvers are the resolvers of the page operation's two fields:
// Query.product and Product.comments, as the schema's resolver root has
// them.
type PageResolvers struct {
	Product  func(ctx context.Context, id string) (*model.Product, error)
	Comments func(ctx context.Context, obj *model.Product, orderBy *model.CommentOrder, language *string,
		ratings []int, first *int, after *string, last *int, before *string) (*model.CommentConnection, error)
}

// PageQuery returns es executing the page operation itself: a query whose
// selection is one product field and, in it, one comments field whose page
// CommentConnection writes in one pass, beside the product's __typename
// and id at most (what Apollo Client, urql and Relay add to a selection),
// with no field middleware, directive or @defer. It resolves the two
// fields through gqlgen's graphql.ResolveField, as the generated code does
// (field contexts, panics recovered, errors on their path, null for a null
// product or page), and writes the two objects around the page itself,
// without the generated code's field sets, concurrency and per-request
// maps: the same bytes.
// Every other operation, and every page operation whose arguments gqlgen
// would refuse, runs the generated code (es.Exec). A page that does not
// fit one pass (fitsConnection) is handed to the generated code with the
// page already read (Replayed): its store reads, cost and plan are
// recorded once.
func PageQuery(es graphql.ExecutableSchema, r PageResolvers) graphql.ExecutableSchema {
	return &pageSchema{ExecutableSchema: es, r: r}
}

type pageSchema struct {
	graphql.ExecutableSchema
	r PageResolvers
}

// The types whose fragments apply to a Query and to a Product: the
// generated code's queryImplementors and productImplementors
// (TestImplementorsMatchSchema checks them against the schema).
var (
	queryImplementors   = []string{"Query"}
	productImplementors = []string{"Product", "Node", "_Entity"}
)

// pagePlan is a page operation's two resolved fields, the fields of its
// product object in their order, and the page's plan.
type pagePlan struct {
	product, comments graphql.CollectedField
	object            productObject
	page              []plannedField
}

// productObject is the product object of a page operation: its fields'
// JSON keys (jsonKey) and what each is, in their order.
type productObject struct {
	keys  []string
	kinds []productKind
}

type productKind uint8

const (
	productComments productKind = iota
	productTypename
	productID
)

// commentsOnly is the most common product object: comments alone,
// unaliased (shared, never changed).
var commentsOnly = productObject{keys: []string{jsonKey("comments")}, kinds: []productKind{productComments}}

// productKinds are the fields a page's product object may select.
var productKinds = map[string]productKind{"comments": productComments, "__typename": productTypename, "id": productID}

// planPage returns the plan of oc's operation, or false when it is not a
// page operation.
func planPage(oc *graphql.OperationContext) (*pagePlan, bool) {
	if oc == nil || oc.Operation == nil || oc.Operation.Operation != ast.Query || runsFieldMiddleware(oc) {
		return nil, false
	}
	var pl pagePlan
	var ok bool
	if pl.product, ok = onlyField(oc, oc.Operation.SelectionSet, queryImplementors, "product"); !ok {
		return nil, false
	}
	if pl.comments, pl.object, ok = productFields(oc, pl.product.Selections); !ok {
		return nil, false
	}
	if pl.page, ok = connectionPlans.plan(oc, pl.comments.Selections, connectionPlan); !ok {
		return nil, false
	}
	return &pl, true
}

// onlyField returns the one field sel selects on an object of
// implementors, if it is name, without directives and not deferred.
func onlyField(oc *graphql.OperationContext, sel ast.SelectionSet, implementors []string, name string) (graphql.CollectedField, bool) {
	if len(sel) == 1 {
		if f, ok := sel[0].(*ast.Field); ok && len(f.Directives) == 0 {
			// What CollectFields makes of one field without directives,
			// without its per-request collection (1% of a page's CPU).
			return graphql.CollectedField{Field: f, Selections: f.SelectionSet, IsNonDeferrable: true}, f.Name == name
		}
	}
	fields := graphql.CollectFields(oc, sel, implementors)
	if len(fields) != 1 {
		return graphql.CollectedField{}, false
	}
	f := fields[0]
	return f, f.Name == name && len(f.Directives) == 0 && !f.IsDeferred()
}

// productFields returns the comments field of a page's product selection
// sel and the object's fields in their order; false when sel selects
// another field, comments twice, or a field with a directive or deferred.
func productFields(oc *graphql.OperationContext, sel ast.SelectionSet) (graphql.CollectedField, productObject, bool) {
	if f, ok := onlyField(oc, sel, productImplementors, "comments"); ok {
		if f.Alias == f.Name {
			return f, commentsOnly, true
		}
		return f, productObject{keys: []string{jsonKey(f.Alias)}, kinds: commentsOnly.kinds}, true
	}
	var comments graphql.CollectedField
	collected := graphql.CollectFields(oc, sel, productImplementors)
	o := productObject{keys: make([]string, 0, len(collected)), kinds: make([]productKind, 0, len(collected))}
	for _, f := range collected {
		kind, known := productKinds[f.Name]
		if !known || len(f.Directives) > 0 || f.IsDeferred() || kind == productComments && comments.Field != nil {
			return graphql.CollectedField{}, productObject{}, false
		}
		if kind == productComments {
			comments = f
		}
		o.keys, o.kinds = append(o.keys, jsonKey(f.Alias)), append(o.kinds, kind)
	}
	return comments, o, comments.Field != nil
}

// pageArgs are the two fields' arguments, coerced as the generated code
// coerces them.
type pageArgs struct {
	id                      string
	orderBy                 *model.CommentOrder
	language, after, before *string
	ratings                 []int
	first, last             *int
}

// coerce returns the arguments of pl's fields with variables vars; false
// when gqlgen refuses one (the generated code then reports it).
func (pl *pagePlan) coerce(vars map[string]any) (*pageArgs, bool) {
	var a pageArgs
	if v, ok := pl.product.ArgumentMap(vars)["id"]; ok {
		id, err := graphql.UnmarshalID(v)
		if err != nil {
			return nil, false
		}
		a.id = id
	}
	raw := pl.comments.ArgumentMap(vars)
	ok := true
	if v := raw["orderBy"]; v != nil {
		a.orderBy = new(model.CommentOrder)
		ok = a.orderBy.UnmarshalGQL(v) == nil
	}
	if v := raw["ratings"]; v != nil && ok {
		vs := graphql.CoerceList(v)
		a.ratings = make([]int, len(vs))
		for i := range vs {
			var err error
			if a.ratings[i], err = graphql.UnmarshalInt(vs[i]); err != nil {
				ok = false
			}
		}
	}
	a.language, ok = optString(raw["language"], ok)
	a.after, ok = optString(raw["after"], ok)
	a.before, ok = optString(raw["before"], ok)
	a.first, ok = optInt(raw["first"], ok)
	a.last, ok = optInt(raw["last"], ok)
	return &a, ok
}

// optString is an optional String argument's value (nil when null or
// absent); ok false when it is not a String, or was already false.
func optString(v any, ok bool) (*string, bool) {
	if v == nil || !ok {
		return nil, ok
	}
	s, err := graphql.UnmarshalString(v)
	return &s, err == nil
}

// optInt is optString for an Int.
func optInt(v any, ok bool) (*int, bool) {
	if v == nil || !ok {
		return nil, ok
	}
	n, err := graphql.UnmarshalInt(v)
	return &n, err == nil
}

// commentsArgs are the comments field's arguments as the generated code
// puts them in its field context.
func (a *pageArgs) commentsArgs() map[string]any {
	return map[string]any{"orderBy": a.orderBy, "language": a.language, "ratings": a.ratings,
		"first": a.first, "after": a.after, "last": a.last, "before": a.before}
}

// Exec runs a page operation itself, anything else as es does.
func (s *pageSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	pl, ok := planPage(oc)
	if !ok {
		return s.ExecutableSchema.Exec(ctx)
	}
	a, ok := pl.coerce(oc.Variables)
	if !ok {
		return s.ExecutableSchema.Exec(ctx) // it reports the argument
	}
	done := false
	return func(ctx context.Context) *graphql.Response {
		if done {
			return nil
		}
		done = true
		data, unfit := s.run(ctx, oc, pl, a)
		if unfit != nil {
			return s.ExecutableSchema.Exec(ctx)(withReplay(ctx, unfit))
		}
		return &graphql.Response{Data: data}
	}
}

// run resolves and writes the page operation; when the page does not fit
// one pass it writes nothing and returns the page read.
func (s *pageSchema) run(ctx context.Context, oc *graphql.OperationContext, pl *pagePlan, a *pageArgs) ([]byte, *model.CommentConnection) {
	// As the generated _Query: its field context, the root field's, the
	// root field middleware, a panic recovered.
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: "Query"})
	ctx = graphql.WithRootFieldContext(ctx, &graphql.RootFieldContext{Object: pl.product.Name, Field: pl.product})
	var unfit *model.CommentConnection
	m := oc.RootResolverMiddleware(ctx, func(ctx context.Context) (res graphql.Marshaler) {
		defer recoverField(ctx, oc)
		return graphql.ResolveField(ctx, oc, pl.product,
			func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
				return &graphql.FieldContext{Object: "Query", Field: field, IsMethod: true, IsResolver: true,
					Args: map[string]any{"id": a.id}}, nil
			},
			func(ctx context.Context) (any, error) { return s.r.Product(ctx, a.id) },
			nil,
			func(ctx context.Context, _ ast.SelectionSet, v *model.Product) graphql.Marshaler {
				if v == nil {
					return graphql.Null
				}
				return s.comments(ctx, oc, pl, a, v, &unfit)
			},
			true, false)
	})
	if unfit != nil {
		return nil, unfit
	}
	var b bytes.Buffer
	root := &objectJSON{keys: []string{jsonKey(pl.product.Alias)}}
	root.values = append(root.one[:0], m)
	root.MarshalGQL(&b)
	return b.Bytes(), nil
}

// comments resolves the page of product obj, as the generated _Product
// and _Product_comments do, and returns the product object holding it;
// a page that does not fit one pass goes to *unfit.
func (s *pageSchema) comments(ctx context.Context, oc *graphql.OperationContext, pl *pagePlan, a *pageArgs,
	obj *model.Product, unfit **model.CommentConnection) graphql.Marshaler {
	var m graphql.Marshaler
	func() {
		defer recoverField(ctx, oc)
		m = graphql.ResolveField(ctx, oc, pl.comments,
			func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
				return &graphql.FieldContext{Object: "Product", Field: field, IsMethod: true, IsResolver: true,
					Args: a.commentsArgs()}, nil
			},
			func(ctx context.Context) (any, error) {
				return s.r.Comments(ctx, obj, a.orderBy, a.language, a.ratings, a.first, a.after, a.last, a.before)
			},
			nil,
			func(ctx context.Context, _ ast.SelectionSet, v *model.CommentConnection) graphql.Marshaler {
				if v == nil {
					return graphql.Null
				}
				if !fitsConnection(pl.page, v) {
					*unfit = v
					return graphql.Null
				}
				return &connectionJSON{fields: pl.page, conn: v}
			},
			true, false)
	}()
	o := &objectJSON{keys: pl.object.keys}
	o.values = o.one[:0]
	for _, kind := range pl.object.kinds {
		var v graphql.Marshaler
		switch kind {
		case productComments:
			v = m
		case productTypename:
			v = graphql.MarshalString("Product")
		case productID:
			v = graphql.MarshalID(obj.ID)
		}
		o.values = append(o.values, v)
	}
	return o
}

// recoverField records a panic of the field being resolved as the
// generated code does: an error at the field's path. Each field PageQuery
// resolves defers it.
func recoverField(ctx context.Context, oc *graphql.OperationContext) {
	if r := recover(); r != nil {
		oc.Error(ctx, oc.Recover(ctx, r))
	}
}

// objectJSON writes an object's fields, as gqlgen's field set does: each
// value under its key (jsonKey), a nil one (from a recovered panic) as
// null. one holds the values of an object of one field.
type objectJSON struct {
	keys   []string
	values []graphql.Marshaler
	one    [1]graphql.Marshaler
}

func (o *objectJSON) MarshalGQL(w io.Writer) {
	for i, key := range o.keys {
		sep := ","
		if i == 0 {
			sep = "{"
		}
		_, _ = io.WriteString(w, sep)
		_, _ = io.WriteString(w, key)
		if v := o.values[i]; v == nil {
			_, _ = io.WriteString(w, "null")
		} else {
			v.MarshalGQL(w)
		}
	}
	_, _ = io.WriteString(w, "}")
}

// replayKey is the context key of a page handed to the generated code.
type replayKey struct{}

// withReplay returns ctx with page, read by the page operation, for the
// generated code's comments resolver to return (Replayed).
func withReplay(ctx context.Context, page *model.CommentConnection) context.Context {
	return context.WithValue(ctx, replayKey{}, page)
}

// Replayed returns the page PageQuery read before it handed the operation
// to the generated code, which the comments resolver returns instead of
// reading it again (its store reads, costs and plan are already
// recorded); false when there is none.
func Replayed(ctx context.Context) (*model.CommentConnection, bool) {
	page, ok := ctx.Value(replayKey{}).(*model.CommentConnection)
	return page, ok
}
