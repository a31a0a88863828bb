package resolvers

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeCodeTableListsEveryCode: the README's table of error codes (the
// one headed "| code | HTTP | what to fix |") names exactly the codes of
// errorCodes, so that a code the gateway answers with is documented and a
// documented code exists.
func TestReadmeCodeTableListsEveryCode(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "| code | HTTP | what to fix |\n")
	if !ok {
		t.Fatal("README.md has no table headed | code | HTTP | what to fix |")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	code := regexp.MustCompile("`([A-Z_]+)`")
	documented := map[string]bool{}
	for _, row := range strings.Split(table, "\n")[1:] { // after the |---| line
		first, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
		for _, m := range code.FindAllStringSubmatch(first, -1) {
			documented[m[1]] = true
		}
	}
	for c := range errorCodes {
		if !documented[c] {
			t.Errorf("code %s (%s) is missing from the README's error table", c, errorCodes[c])
		}
	}
	var extra []string
	for c := range documented {
		if _, ok := errorCodes[c]; !ok {
			extra = append(extra, c)
		}
	}
	slices.Sort(extra)
	if len(extra) > 0 {
		t.Errorf("the README's error table lists codes the gateway does not have: %v", extra)
	}
}
