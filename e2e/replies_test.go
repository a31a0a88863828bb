//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// TestMerchantRepliesOnAnUpgradedTable: serve refuses a DynamoDB table
// whose indexes project what a page showed before replies (naming the
// command); create-table rebuilds them; then a gateway with a merchant
// API key creates a verified comment and replies to it, and the public
// page, read from the indexes, shows both.
func TestMerchantRepliesOnAnUpgradedTable(t *testing.T) {
	client := dynamotest.MustClient(t) // skips without DYNAMODB_ENDPOINT
	name := fmt.Sprintf("e2e-oldproj-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := "dynamodb:" + name
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// As the first release made it: no helpful twins, every index INCLUDE
	// what it showed then (84 attributes in all, within DynamoDB's 100).
	in := dynamo.CreateTableInput(name, false)
	before := []string{"id", "productId", "language", "rating", "author", "title", "body", "createdAt", "count_5",
		"status", "reports", "moderatedAt", "moderationReason", "authorId"}
	in.GlobalSecondaryIndexes = slices.DeleteFunc(in.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool {
		return strings.HasPrefix(aws.ToString(g.IndexName), "helpful")
	})
	in.AttributeDefinitions = slices.DeleteFunc(in.AttributeDefinitions, func(a types.AttributeDefinition) bool { return aws.ToString(a.AttributeName) == "HSK" })
	for i := range in.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes[i].Projection = &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: before}
	}
	if _, err := client.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteTable(t, client, name) })

	_, stderr, err := runGW(t, nil, append([]string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-open-mutations"}, serveArgs(spec)...)...)
	want := "run `comments-gateway create-table -store " + spec + "` once"
	if msg := errorLine(stderr); err == nil || !strings.Contains(msg, want) || !strings.Contains(msg, "lacks helpful, unhelpful, verified, reply") {
		t.Fatalf("serve of a table of the old projection: exit %v, error %q; want it to name %q\n%s", err, msg, want, tail(stderr, 2000))
	}
	MustRun(t, "create-table", "-stream=false", "-store", spec)

	const key = "shop-backend-key"
	argv := append([]string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-merchant-api-keys", auth.HashKey(key)}, serveArgs(spec)...)
	s := startServer(t, MustBinary(t), argv, nil, func(s *Server) { s.Stop(t) })
	post := func(query string) json.RawMessage {
		body, _ := json.Marshal(map[string]any{"query": query})
		r := s.MustRequest(t, "POST", "/graphql", string(body), "Content-Type", "application/json", "X-API-Key", key)
		if len(r.Errors) > 0 {
			t.Fatalf("%s: %+v", query, r.Errors)
		}
		return r.Data
	}
	var created struct {
		CreateComment struct{ Comment struct{ ID string } }
	}
	json.Unmarshal(post(`mutation { createComment(input: {productId: "shop", language: "en", rating: 5, author: "Bo", title: "Fits", body: "Good.", verifiedPurchase: true}) { comment { id } } }`), &created)
	id := created.CreateComment.Comment.ID
	post(`mutation { replyToComment(input: {commentId: "` + id + `", body: "Thank you, Bo!"}) { comment { id } } }`)
	var page struct {
		Product struct {
			Comments struct {
				Nodes []struct {
					ID               string
					VerifiedPurchase bool
					Reply            *struct{ Body string }
				}
			}
		}
	}
	if err := s.Query(ctx, `{ product(id: "shop") { comments(first: 5) { nodes { id verifiedPurchase reply { body } } } } }`, nil, &page); err != nil {
		t.Fatal(err)
	}
	n := page.Product.Comments.Nodes
	if len(n) != 1 || n[0].ID != id || !n[0].VerifiedPurchase || n[0].Reply == nil || n[0].Reply.Body != "Thank you, Bo!" {
		t.Errorf("the public page: %+v", n)
	}
}
