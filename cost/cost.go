package cost

import (
	"context"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Max is where every count saturates: far above any limit, far below
// overflow when a complexity function multiplies it by a page size.
const Max = 1 << 40

// FieldCost is a schema's custom complexity: the cost of field of typeName
// given its children's cost and its arguments, ok false for the default.
// gqlgen's ExecutableSchema.Complexity has this signature.
type FieldCost func(ctx context.Context, typeName, field string, child int, args map[string]any) (int, bool)

// Shape is the measure of a selection set, or of one field with its
// selection set.
type Shape struct {
	Depth      int // levels of non-introspection fields with selections below
	Aliases    int // aliased fields
	Fields     int // fields, spreads expanded
	Complexity int
	Entities   int // _entities representations
}

func (s *Shape) add(o Shape) {
	s.Depth = max(s.Depth, o.Depth)
	s.Aliases = add(s.Aliases, o.Aliases)
	s.Fields = add(s.Fields, o.Fields)
	s.Complexity = add(s.Complexity, o.Complexity)
	s.Entities = add(s.Entities, o.Entities)
}

// Result is the measure of an operation in its document.
type Result struct {
	Depth      int // 1 for a selection of leaf fields
	Aliases    int
	Fields     int
	Complexity int
	Entities   int
	// DocumentFields is the expanded fields of every operation and every
	// fragment definition of the document.
	DocumentFields int
	// Steps is the selections the pass visited: at most the number of
	// selections written in the document.
	Steps int
}

// Analyze measures op (nil: the document only) of doc against schema, with
// the operation's coerced variables vars and the schema's custom cost fc.
func Analyze(ctx context.Context, schema *ast.Schema, doc *ast.QueryDocument, op *ast.OperationDefinition, vars map[string]any, fc FieldCost) Result {
	a := &analyzer{ctx: ctx, schema: schema, vars: vars, cost: fc, frags: map[string]*fragment{}}
	for _, f := range doc.Fragments {
		if _, dup := a.frags[f.Name]; !dup {
			a.frags[f.Name] = &fragment{def: f}
		}
	}
	var r Result
	for _, o := range doc.Operations {
		s := a.selectionSet(o.SelectionSet, rootType(schema, o.Operation))
		r.DocumentFields = add(r.DocumentFields, s.Fields)
		if o == op {
			r.Depth, r.Aliases, r.Fields = 1+s.Depth, s.Aliases, s.Fields
			r.Complexity, r.Entities = s.Complexity, s.Entities
		}
	}
	for _, f := range doc.Fragments {
		r.DocumentFields = add(r.DocumentFields, a.spread(f.Name).Fields)
	}
	r.Steps = a.steps
	return r
}

// rootType is the schema type operations of kind op select from.
func rootType(schema *ast.Schema, op ast.Operation) *ast.Definition {
	switch op {
	case ast.Mutation:
		return schema.Mutation
	case ast.Subscription:
		return schema.Subscription
	}
	return schema.Query
}

type analyzer struct {
	ctx    context.Context
	schema *ast.Schema
	vars   map[string]any
	cost   FieldCost
	frags  map[string]*fragment
	steps  int
}

// fragment is a fragment definition and its memoized shape.
type fragment struct {
	def   *ast.FragmentDefinition
	state int // 0 not measured, 1 being measured, 2 measured
	shape Shape
}

func (a *analyzer) selectionSet(ss ast.SelectionSet, parent *ast.Definition) Shape {
	var s Shape
	for _, sel := range ss {
		a.steps++
		switch x := sel.(type) {
		case *ast.Field:
			s.add(a.field(x, parent))
		case *ast.InlineFragment:
			p := parent
			if x.TypeCondition != "" {
				p = a.schema.Types[x.TypeCondition]
			}
			s.add(a.selectionSet(x.SelectionSet, p))
		case *ast.FragmentSpread:
			s.add(a.spread(x.Name))
		}
	}
	return s
}

// spread is the memoized shape of the named fragment: measured on first
// use, nothing for an unknown fragment or where a cycle closes.
func (a *analyzer) spread(name string) Shape {
	f := a.frags[name]
	if f == nil || f.state == 1 {
		return Shape{}
	}
	if f.state == 0 {
		f.state = 1
		f.shape = a.selectionSet(f.def.SelectionSet, a.schema.Types[f.def.TypeCondition])
		f.state = 2
	}
	return f.shape
}

func (a *analyzer) field(f *ast.Field, parent *ast.Definition) Shape {
	def := fieldDefinition(parent, f.Name)
	var typ *ast.Definition
	if def != nil {
		typ = a.schema.Types[def.Type.Name()]
	}
	child := a.selectionSet(f.SelectionSet, typ)
	s := Shape{Fields: add(1, child.Fields), Aliases: child.Aliases, Entities: child.Entities}
	if f.Alias != "" && f.Alias != f.Name {
		s.Aliases = add(s.Aliases, 1)
	}
	if len(f.SelectionSet) > 0 && !strings.HasPrefix(f.Name, "__") {
		s.Depth = 1 + child.Depth
	}
	if def == nil || parent == nil || typ == nil {
		s.Complexity = add(1, child.Complexity) // an invalid field: validation refuses it
		return s
	}
	if typ.Name == "__Schema" {
		return s
	}
	childCost := 0
	switch typ.Kind {
	case ast.Object, ast.Interface, ast.Union:
		childCost = child.Complexity
	}
	args := argumentMap(def.Arguments, f.Arguments, a.vars)
	if parent == a.schema.Query && f.Name == "_entities" {
		n := representations(args["representations"])
		s.Entities = add(s.Entities, n)
		s.Complexity = add(1, mul(max(n, 1), childCost))
		return s
	}
	if parent.Kind == ast.Interface {
		for _, t := range a.schema.GetPossibleTypes(parent) {
			s.Complexity = max(s.Complexity, a.fieldCost(t, typ, f.Name, childCost, args))
		}
		return s
	}
	s.Complexity = a.fieldCost(parent, typ, f.Name, childCost, args)
	return s
}

// fieldCost is the custom cost of a field when there is one (and it is at
// least 1), else 1 plus its children's cost, as gqlgen computes it.
func (a *analyzer) fieldCost(parent, typ *ast.Definition, name string, child int, args map[string]any) int {
	if a.cost != nil {
		if c, ok := a.cost(a.ctx, parent.Name, name, child, args); ok && c >= 1 {
			return min(c, Max)
		}
	}
	return add(1, child)
}

// fieldDefinition is the definition of field name on parent (nil when
// unknown), __typename included, as gqlparser's validation resolves it.
func fieldDefinition(parent *ast.Definition, name string) *ast.FieldDefinition {
	if name == "__typename" {
		return &ast.FieldDefinition{Name: name, Type: ast.NamedType("String", nil)}
	}
	if parent == nil {
		return nil
	}
	return parent.Fields.ForName(name)
}

// argumentMap is a field's arguments with their defaults, as
// ast.Field.ArgumentMap gives them after validation: a variable's value as
// coerced, a literal's value, else the argument's default. A literal that
// has no value (an invalid document) is left out instead of panicking.
func argumentMap(defs ast.ArgumentDefinitionList, args ast.ArgumentList, vars map[string]any) map[string]any {
	out := map[string]any{}
	for _, d := range defs {
		var val any
		has := false
		if arg := args.ForName(d.Name); arg != nil && arg.Value != nil {
			if arg.Value.Kind == ast.Variable {
				val, has = vars[arg.Value.Raw]
			} else if v, err := arg.Value.Value(vars); err == nil {
				val, has = v, true
			}
		}
		if !has && d.DefaultValue != nil {
			if v, err := d.DefaultValue.Value(vars); err == nil {
				val, has = v, true
			}
		}
		if has {
			out[d.Name] = val
		}
	}
	return out
}

// representations is how many entities an _entities representations
// argument asks for: the list's length (a single value is coerced to a list
// of one).
func representations(v any) int {
	switch l := v.(type) {
	case nil:
		return 0
	case []any:
		return len(l)
	case []map[string]any:
		return len(l)
	}
	return 1
}

// add is a+b, saturating at Max.
func add(a, b int) int { return min(a+b, Max) }

// mul is a×b of non-negative a and b, saturating at Max.
func mul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > Max/b {
		return Max
	}
	return min(a*b, Max)
}
