package jsonl

import (
	"fmt"
	"slices"
	"strings"
)

// BadLinesError is the error of an input with bad lines: the first of them
// (at most Options.MaxBadLines), in input order, and how many there are in
// all. errors.As finds the first *LineError in it.
type BadLinesError struct {
	First []*LineError
	Total int
}

// Error is the first bad lines, one a line ("line N: reason"), then, when
// there are more than one, their count. A single bad line is just its
// LineError.
func (e *BadLinesError) Error() string {
	var b strings.Builder
	for i, le := range e.First {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(le.Error())
	}
	switch {
	case e.Total == 1:
	case e.Total > len(e.First):
		fmt.Fprintf(&b, "\n%d bad lines, the first %d above; nothing was loaded", e.Total, len(e.First))
	default:
		fmt.Fprintf(&b, "\n%d bad lines; nothing was loaded", e.Total)
	}
	return b.String()
}

// Unwrap returns the LineErrors listed.
func (e *BadLinesError) Unwrap() []error {
	errs := make([]error, len(e.First))
	for i, le := range e.First {
		errs[i] = le
	}
	return errs
}

// badLines collects the bad lines of a check, in any order: it keeps the
// max with the lowest line numbers and counts them all.
type badLines struct {
	max   int
	first []*LineError // sorted by line
	total int
}

func (b *badLines) add(le *LineError) {
	b.total++
	i, _ := slices.BinarySearchFunc(b.first, le.Line, func(x *LineError, line int) int { return x.Line - line })
	if i < b.max {
		b.first = slices.Insert(b.first, i, le)
		b.first = b.first[:min(len(b.first), b.max)]
	}
}

// err is the BadLinesError of the lines collected, nil when there are none.
func (b *badLines) err() error {
	if b.total == 0 {
		return nil
	}
	return &BadLinesError{First: b.first, Total: b.total}
}
