package serve

import (
	"os"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/storespec"
)

// TestREADMEQuotesTheLegacyRefusal: the refusal README.md's Upgrading
// section shows is the one serve prints.
func TestREADMEQuotesTheLegacyRefusal(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "error: " + LegacyMessage(storespec.Spec{Kind: "dynamodb", Arg: "comments"})
	if !strings.Contains(string(b), want) {
		t.Errorf("README.md does not quote serve's refusal of a design-1 table:\n%s", want)
	}
}
