package resolvers

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestExampleErrorCodesListEveryCode: the client example's TypeScript union
// of error codes (examples/react-apollo/src/errorCodes.ts, the array
// errorCodes) names exactly the codes of errorCodes, so an app that switches
// on ErrorCode sees every code the gateway sends, and no other.
func TestExampleErrorCodesListEveryCode(t *testing.T) {
	const path = "../examples/react-apollo/src/errorCodes.ts"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(src), "export const errorCodes = [")
	list, _, ok2 := strings.Cut(list, "] as const;")
	if !ok || !ok2 {
		t.Fatalf("%s has no `export const errorCodes = [ … ] as const;`", path)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`'([A-Z_]+)'`).FindAllStringSubmatch(list, -1) {
		listed = append(listed, m[1])
	}
	var want []string
	for c := range errorCodes {
		want = append(want, c)
	}
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("%s lists\n%q\nthe gateway's codes (errorCodes, codes.go), sorted, are\n%q", path, listed, want)
	}
}
