package table

import "strconv"

// Kind is the type of a Value: DynamoDB's S or N, or none.
type Kind uint8

// Kinds of values.
const (
	KindNone Kind = iota // no value: what an absent attribute reads as
	KindS                // a string (DynamoDB's S)
	KindN                // a number, an int64 (DynamoDB's N)
)

// Value is one attribute value of an item: a string or an int64, held
// inline, so that reading an item allocates no interface. The zero Value
// is the value of no attribute (KindNone); it is never stored. Values
// compare with ==.
type Value struct {
	str  string
	num  int64
	kind Kind
}

// S returns the string value s.
func S(s string) Value { return Value{str: s, kind: KindS} }

// N returns the number value n.
func N(n int64) Value { return Value{num: n, kind: KindN} }

// Kind returns the type of v (KindNone for the zero Value).
func (v Value) Kind() Kind { return v.kind }

// Str returns v's string, and false when v is not a string (absent, or a
// number).
func (v Value) Str() (string, bool) { return v.str, v.kind == KindS }

// Num returns v's number, and false when v is not a number (absent, or a
// string).
func (v Value) Num() (int64, bool) { return v.num, v.kind == KindN }

// String returns v as text, for messages: the string, the number in
// decimal, or "<none>".
func (v Value) String() string {
	switch v.kind {
	case KindS:
		return v.str
	case KindN:
		return strconv.FormatInt(v.num, 10)
	}
	return "<none>"
}

// size is the bytes v counts toward DynamoDB's item size limit, as this
// store counts them: a string's length, 8 for a number.
func (v Value) size() int {
	if v.kind == KindN {
		return 8
	}
	return len(v.str)
}

// String returns DynamoDB's name of the kind: "S", "N", or "none".
func (k Kind) String() string {
	switch k {
	case KindS:
		return "S"
	case KindN:
		return "N"
	}
	return "none"
}
