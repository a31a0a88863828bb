package jsonl

import (
	"fmt"
	"strings"
	"testing"
)

// TestDuplicatesAcrossRuns checks that a duplicate check whose ids spill to
// sorted runs (4 ids in memory) reports exactly what the check in memory
// alone reports: the same bad lines, duplicates or not, in input order, and
// the same count when the input is good.
func TestDuplicatesAcrossRuns(t *testing.T) {
	input := func(n int, edit func(i int) map[string]any) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			r := map[string]any{"id": fmt.Sprintf("id-%04d", i), "body": fmt.Sprintf("body %d", i)}
			for k, v := range edit(i) {
				r[k] = v
			}
			b.WriteString(line(t, r) + "\n")
		}
		return b.String()
	}
	sameID := func(pairs ...[2]int) func(int) map[string]any {
		return func(i int) map[string]any {
			for _, p := range pairs {
				if i == p[1] {
					return map[string]any{"id": fmt.Sprintf("id-%04d", p[0])}
				}
			}
			return nil
		}
	}
	cases := map[string]string{
		"good":                       input(40, sameID()),
		"one duplicate across runs":  input(40, sameID([2]int{3, 30})),
		"the second duplicate first": input(40, sameID([2]int{5, 25}, [2]int{2, 35})),
		"three times":                input(40, sameID([2]int{7, 12}, [2]int{7, 33})),
		"duplicate in the same run":  input(40, sameID([2]int{37, 39})),
		"duplicate before a bad line": input(40, func(i int) map[string]any {
			if i == 28 {
				return map[string]any{"rating": 9}
			}
			return sameID([2]int{3, 20})(i)
		}),
		"bad line before a duplicate": input(40, func(i int) map[string]any {
			if i == 10 {
				return map[string]any{"rating": 9}
			}
			return sameID([2]int{3, 20})(i)
		}),
		"same comment without ids": input(40, func(i int) map[string]any {
			if i == 4 || i == 31 {
				return map[string]any{"id": nil, "body": "the same"}
			}
			return nil
		}),
	}
	for name, in := range cases {
		run := func() (int, string) {
			sum, err := Read(strings.NewReader(in), Options{TempDir: t.TempDir()}, nil)
			return sum.Comments, fmt.Sprint(err)
		}
		wantN, wantErr := run()
		old := maxIDsInMemory
		maxIDsInMemory = 4
		gotN, gotErr := run()
		maxIDsInMemory = old
		if gotN != wantN || gotErr != wantErr {
			t.Errorf("%s: with runs %d comments, %s; in memory %d, %s", name, gotN, gotErr, wantN, wantErr)
		}
		t.Logf("%s: %s", name, gotErr)
		if name != "good" && wantErr == "<nil>" {
			t.Errorf("%s: no error", name)
		}
	}
}
