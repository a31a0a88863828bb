package gqlhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Strict input coercion of variables, as the GraphQL specification asks
// (and graphql-js does): gqlparser's validator.VariableValues, which gqlgen
// runs, accepts the string "10" for an Int, and gqlgen's Int unmarshaller
// then coerces it. checkVariables refuses what the specification refuses,
// with graphql-js's messages, and reports every bad variable at once.

// StrictVariables refuses an operation whose variables are not valid
// values of their types, before anything runs (for every transport).
type StrictVariables struct{ Schema *ast.Schema }

var (
	_ graphql.HandlerExtension        = StrictVariables{}
	_ graphql.OperationContextMutator = StrictVariables{}
)

// ExtensionName implements graphql.HandlerExtension.
func (StrictVariables) ExtensionName() string { return "StrictVariables" }

// Validate implements graphql.HandlerExtension.
func (StrictVariables) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext implements graphql.OperationContextMutator. It
// checks the coerced variables (gqlgen keeps what was sent, with top-level
// Int and Float numbers converted); the POST and GET transports replace
// this one error with all of checkVariables' on the raw variables.
func (s StrictVariables) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if errs := checkVariables(s.Schema, oc.Operation, oc.Variables); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// checkVariables checks vars against op's variable definitions: a
// required variable is provided and not null, and every value is one the
// specification's input coercion accepts for its type (Int: a JSON integer
// in the 32-bit range; Float: a number; String: a string; Boolean: true or
// false; ID: a string or an integer; enums: one of the names; input
// objects: known fields, required ones present). Custom scalars are left to
// their unmarshallers.
func checkVariables(schema *ast.Schema, op *ast.OperationDefinition, vars map[string]any) gqlerror.List {
	var errs gqlerror.List
	for _, def := range op.VariableDefinitions {
		v, ok := vars[def.Variable]
		var msg string
		switch {
		case !ok && def.DefaultValue == nil && def.Type.NonNull:
			msg = fmt.Sprintf("Variable \"$%s\" of required type %q was not provided.", def.Variable, def.Type.String())
		case !ok:
			continue
		case v == nil && def.Type.NonNull:
			msg = fmt.Sprintf("Variable \"$%s\" of non-null type %q must not be null.", def.Variable, def.Type.String())
		default:
			c := coercion{schema: schema}
			if at, why := c.check(def.Type, v); why != "" {
				msg = fmt.Sprintf("Variable \"$%s\" got invalid value %s", def.Variable, showValue(at.value))
				if at.path != "" {
					msg += fmt.Sprintf(" at %q", def.Variable+at.path)
				}
				msg += "; " + why
			}
		}
		if msg != "" {
			err := gqlerror.ErrorPosf(def.Position, "%s", msg)
			errcode.Set(err, errcode.ValidationFailed)
			errs = append(errs, err)
		}
	}
	return errs
}

// coercion checks one variable's value.
type coercion struct{ schema *ast.Schema }

// where is the part of a value that failed, and its path within the value
// ("[2].name"; "" for the value itself), built only for a failure.
type where struct {
	value any
	path  string
}

// check returns where v fails to be a value of typ and why ("" when it is
// one).
func (c coercion) check(typ *ast.Type, v any) (where, string) {
	if v == nil {
		if typ.NonNull {
			return where{v, ""}, fmt.Sprintf("Expected non-nullable type %q not to be null.", typ.String())
		}
		return where{}, ""
	}
	if typ.Elem != nil {
		list, ok := v.([]any)
		if !ok { // a single value is coerced to a list of one
			return c.check(typ.Elem, v)
		}
		for i, e := range list {
			if at, why := c.check(typ.Elem, e); why != "" {
				at.path = fmt.Sprintf("[%d]", i) + at.path
				return at, why
			}
		}
		return where{}, ""
	}
	def := c.schema.Types[typ.NamedType]
	if def == nil {
		return where{}, "" // cannot happen after validation
	}
	switch def.Kind {
	case ast.Scalar:
		if why := checkScalar(def.Name, v); why != "" {
			return where{v, ""}, why
		}
	case ast.Enum:
		s, ok := v.(string)
		if !ok || def.EnumValues.ForName(s) == nil {
			return where{v, ""}, fmt.Sprintf("Value %s does not exist in %q enum.", showValue(v), def.Name)
		}
	case ast.InputObject:
		return c.checkObject(def, v)
	}
	return where{}, ""
}

func (c coercion) checkObject(def *ast.Definition, v any) (where, string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return where{v, ""}, fmt.Sprintf("Expected type %q to be an object.", def.Name)
	}
	for name := range obj {
		if def.Fields.ForName(name) == nil {
			return where{v, ""}, fmt.Sprintf("Field %q is not defined by type %q.", truncate(name, 64), def.Name)
		}
	}
	for _, f := range def.Fields {
		fv, ok := obj[f.Name]
		if !ok {
			if f.Type.NonNull && f.DefaultValue == nil {
				return where{v, ""}, fmt.Sprintf("Field %q of required type %q was not provided.", f.Name, f.Type.String())
			}
			continue
		}
		if at, why := c.check(f.Type, fv); why != "" {
			at.path = "." + f.Name + at.path
			return at, why
		}
	}
	return where{}, ""
}

// checkScalar says why v is not a value of the built-in scalar name ("" when
// it is one, or when name is a custom scalar).
func checkScalar(name string, v any) string {
	switch name {
	case "Int":
		f, isNum := number(v)
		switch {
		case !isNum || f != math.Trunc(f):
			return "Int cannot represent non-integer value: " + showValue(v)
		case f > math.MaxInt32 || f < math.MinInt32:
			return "Int cannot represent non 32-bit signed integer value: " + showValue(v)
		}
	case "Float":
		if f, isNum := number(v); !isNum || math.IsInf(f, 0) || math.IsNaN(f) {
			return "Float cannot represent non numeric value: " + showValue(v)
		}
	case "String":
		if _, ok := v.(string); !ok {
			return "String cannot represent a non string value: " + showValue(v)
		}
	case "Boolean":
		if _, ok := v.(bool); !ok {
			return "Boolean cannot represent a non boolean value: " + showValue(v)
		}
	case "ID":
		if _, ok := v.(string); ok {
			return ""
		}
		if f, isNum := number(v); !isNum || f != math.Trunc(f) {
			return "ID cannot represent value: " + showValue(v)
		}
	}
	return ""
}

// integralNumbers rewrites, in place, every JSON number in v written with
// a fraction or an exponent but integral in value (5.0, 1e2) as the integer
// it is (5, 100), within ±2^53 where a float64 is exact, and returns v. In
// JSON, as in graphql-js, these are the same number, and the Int
// coercion takes any integral number; gqlgen's and gqlparser's Int
// decoding would otherwise refuse "5.0" with "cannot use value 0 as Int".
func integralNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			if f, err := x.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
				return json.Number(strconv.FormatInt(int64(f), 10))
			}
		}
	case map[string]any:
		for k, e := range x {
			x[k] = integralNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = integralNumbers(e)
		}
	}
	return v
}

// number returns v as a float64 when it is a JSON number (json.Number, or
// what gqlgen converted it to).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil || isRangeErr(err)
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func isRangeErr(err error) bool {
	return errors.Is(err, strconv.ErrRange)
}

// showValue renders a value for a message as JSON, cut to 40 bytes.
func showValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "(a value)"
	}
	return truncate(strings.ToValidUTF8(string(b), "\uFFFD"), 40)
}
