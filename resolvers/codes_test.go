package resolvers

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/testutil"
)

// TestReadmeCodeTableListsEveryCode: the documentation's table of error
// codes (the one headed "| code | HTTP | what to fix |", in docs/api.md)
// names exactly the codes of errorCodes, so that a code the gateway answers
// with is documented and a documented code exists.
func TestReadmeCodeTableListsEveryCode(t *testing.T) {
	const header = "| code | HTTP | what to fix |\n"
	doc := testutil.DocWith(t, header)
	_, table, _ := strings.Cut(doc.Text, header)
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
			t.Errorf("code %s (%s) is missing from %s's error table", c, errorCodes[c], doc.Path)
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
		t.Errorf("%s's error table lists codes the gateway does not have: %v", doc.Path, extra)
	}
}
