package policy

import (
	"github.com/99designs/gqlgen/graphql/errcode"
)

// Default limits on one request. Each is a field of Limits; a zero field
// takes its default.
const (
	DefaultMaxBodyBytes  = 1 << 20 // 1 MiB
	DefaultMaxComplexity = 18_000  // in items read: a stats read is StatsShards items
	DefaultMaxDepth      = 10
	DefaultMaxAliases    = 100
	DefaultMaxTokens     = 10_000
	DefaultMaxSelections = 1_000
	DefaultMaxEntities   = 100
)

func init() {
	// Refused operations are protocol errors: gqlgen answers them with a 4xx.
	errcode.RegisterErrorType(CodeComplexity, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeDepth, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeAliases, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeSelections, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeEntities, errcode.KindProtocol)
}

// Limits bound what one request may ask for.
type Limits struct {
	MaxBodyBytes  int64 // request body
	MaxComplexity int   // gqlgen complexity, with list multipliers (see package complexity)
	MaxDepth      int   // selection-set depth, fragments expanded
	MaxAliases    int   // aliased fields in the operation, fragments expanded
	MaxTokens     int   // lexer tokens of the query text
	// MaxSelections bounds the fields of the document once its fragments
	// are expanded (every operation and fragment definition): what
	// validation's field merging, quadratic in them, would face.
	MaxSelections int
	MaxEntities   int // _entities representations per request
}

// WithDefaults gives each zero field its default.
func (l Limits) WithDefaults() Limits {
	l.MaxBodyBytes = PositiveOr(l.MaxBodyBytes, DefaultMaxBodyBytes)
	l.MaxComplexity = PositiveOr(l.MaxComplexity, DefaultMaxComplexity)
	l.MaxDepth = PositiveOr(l.MaxDepth, DefaultMaxDepth)
	l.MaxAliases = PositiveOr(l.MaxAliases, DefaultMaxAliases)
	l.MaxTokens = PositiveOr(l.MaxTokens, DefaultMaxTokens)
	l.MaxSelections = PositiveOr(l.MaxSelections, DefaultMaxSelections)
	l.MaxEntities = PositiveOr(l.MaxEntities, DefaultMaxEntities)
	return l
}
