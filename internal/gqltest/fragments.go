package gqltest

import (
	"strconv"
	"strings"
)

// ExponentialFragments is a hostile query: `{ ...F0 }` with fragments
// F0…F(n-1), each spreading the next twice, the last selecting __typename,
// 2^(n-1) fields once expanded from a text linear in n.
func ExponentialFragments(n int) string {
	var b strings.Builder
	b.WriteString("{ ...F0 }")
	for i := range n - 1 {
		b.WriteString(" fragment F" + strconv.Itoa(i) + " on Query { ...F" + strconv.Itoa(i+1) + " ...F" + strconv.Itoa(i+1) + " }")
	}
	b.WriteString(" fragment F" + strconv.Itoa(n-1) + " on Query { __typename }")
	return b.String()
}
