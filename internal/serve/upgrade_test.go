package serve

import (
	"testing"

	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/internal/testutil"
)

// TestREADMEQuotesTheLegacyRefusal: the refusal the documentation's
// Upgrading section (docs/operations.md) shows is the one serve prints: one
// document quotes it exactly.
func TestREADMEQuotesTheLegacyRefusal(t *testing.T) {
	testutil.DocWith(t, "error: "+LegacyMessage(storespec.Spec{Kind: "dynamodb", Arg: "comments"}))
}
