//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// iamPolicies names the policy in deploy/ that grants each command's
// DynamoDB calls: the gateway's task role (iam-policy.json), the
// read-only role of export, and the admin role of the commands that create
// the table or load it.
var iamPolicies = map[string]string{
	"serve":         "iam-policy.json",
	"export":        "iam-policy-readonly.json",
	"create-table":  "iam-policy-admin.json",
	"import":        "iam-policy-admin.json",
	"seed":          "iam-policy-admin.json",
	"rebuild-stats": "iam-policy-admin.json",
}

// TestIAMPoliciesGrantExactlyTheCallsMade runs every command that talks to
// DynamoDB — and serve with subscriptions read from the table's stream,
// queries of every kind, every mutation and a subscription that receives
// an event — with their DynamoDB calls going through a recording proxy
// (dynamoCalls), which also saw every DynamoDB test of this package that
// ran before. Each command's calls must be granted by its policy in deploy/
// (iamPolicies), and each policy must grant no action its commands never
// called: least privilege, and no call that AWS would refuse.
func TestIAMPoliciesGrantExactlyTheCallsMade(t *testing.T) {
	dynamotest.Endpoint(t)
	mustDriveEveryDynamoCall(t)

	called := recordedDynamoCalls()
	t.Logf("recorded DynamoDB calls by command: %v", called)
	if ops := called["unknown"]; len(ops) > 0 {
		t.Errorf("calls from a process without its command in the user agent: %v", ops)
	}
	byPolicy := map[string]map[string]bool{}
	for cmd, file := range iamPolicies {
		if byPolicy[file] == nil {
			byPolicy[file] = map[string]bool{}
		}
		granted := mustPolicyActions(t, file)
		for _, op := range called[cmd] {
			byPolicy[file][op] = true
			if !granted[op] {
				t.Errorf("%s calls dynamodb:%s, which deploy/%s does not grant", cmd, op, file)
			}
		}
	}
	for file, calls := range byPolicy {
		for op := range mustPolicyActions(t, file) {
			if !calls[op] {
				t.Errorf("deploy/%s grants dynamodb:%s, which none of its commands (%s) called", file, op, commandsOf(file))
			}
		}
	}
}

// mustPolicyActions returns the DynamoDB actions (without "dynamodb:") the
// IAM policy document deploy/file allows.
func mustPolicyActions(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, "deploy", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version   string
		Statement []struct {
			Effect   string
			Action   json.RawMessage
			Resource json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != "2012-10-17" || len(doc.Statement) == 0 {
		t.Fatalf("deploy/%s: not an IAM policy document (Version 2012-10-17 and statements): %v", file, err)
	}
	actions := map[string]bool{}
	for i, st := range doc.Statement {
		var list []string
		if json.Unmarshal(st.Action, &list) != nil {
			var one string
			if err := json.Unmarshal(st.Action, &one); err != nil {
				t.Fatalf("deploy/%s statement %d: Action is neither a string nor a list", file, i)
			}
			list = []string{one}
		}
		if st.Effect != "Allow" {
			t.Fatalf("deploy/%s statement %d: Effect %q, want Allow", file, i, st.Effect)
		}
		for _, a := range list {
			op, ok := strings.CutPrefix(a, "dynamodb:")
			if !ok || strings.ContainsAny(op, "*?") {
				t.Errorf("deploy/%s statement %d: action %q, want dynamodb:OPERATION without wildcards", file, i, a)
			}
			actions[op] = true
		}
	}
	return actions
}

func commandsOf(file string) string {
	var cmds []string
	for cmd, f := range iamPolicies {
		if f == file {
			cmds = append(cmds, cmd)
		}
	}
	sort.Strings(cmds)
	return strings.Join(cmds, ", ")
}

// mustDriveEveryDynamoCall runs each command of iamPolicies on a fresh
// table the way an operator would, and serve through every path that
// reaches DynamoDB.
func mustDriveEveryDynamoCall(t *testing.T) {
	table := fmt.Sprintf("iam-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := "dynamodb:" + table
	t.Cleanup(func() { deleteTable(t, dynamotest.MustClient(t), table) })
	MustRun(t, "create-table", "-stream=false", "-store", spec)
	MustRun(t, "create-table", "-store", spec) // enables the stream: UpdateTable
	data := generateE2EData()[:60]
	MustRun(t, "import", "-store", spec, writeJSONL(t, data))
	MustRun(t, "seed", "-store", spec, "-comments", "40", "-products", "3")
	MustRun(t, "export", "-store", spec, filepath.Join(t.TempDir(), "export.jsonl"))
	MustRun(t, "export", "-store", spec, "-product", data[0].Product, filepath.Join(t.TempDir(), "product.jsonl"))

	s := MustStartServer(t, "-store", spec, "-live-stream-poll", "100ms", "-live-poll", "100ms")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pid := data[0].Product
	sub, err := subscribe(ctx, s.URL, `subscription($p: ID!) { commentAdded(productId: $p) { id } }`, map[string]any{"p": pid})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var created struct {
		CreateComment struct{ Comment struct{ ID string } }
	}
	MustQuery(t, s, `mutation($p: ID!) { createComment(input: {productId: $p, language: "en", rating: 5, author: "iam", title: "t", body: "b"}) { comment { id } } }`, map[string]any{"p": pid}, &created)
	id := created.CreateComment.Comment.ID
	MustQuery(t, s, `{ topProducts(first: 3) { product { id } fiveStarCount } }`, nil, nil)
	MustQuery(t, s, `query($p: ID!, $id: ID!) { comment(id: $id) { id } product(id: $p) { stats { total } languages { language total }
		comments(first: 5, language: "en", ratings: [4, 5]) { totalCount edges { node { id } } } } }`, map[string]any{"p": pid, "id": id}, nil)
	MustQuery(t, s, `mutation($id: ID!) { updateComment(input: {id: $id, rating: 4}) { comment { id } } }`, map[string]any{"id": id}, nil)
	MustQuery(t, s, `mutation($id: ID!) { deleteComment(input: {id: $id}) { deletedCommentId } }`, map[string]any{"id": id}, nil)
	// The stream reader may first deliver the earlier comments of the
	// product (imported before serve started): wait for the new one.
	for delivered := false; !delivered; {
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				t.Fatalf("subscription ended before its event: %v", sub.err)
			}
			delivered = strings.Contains(string(ev), id)
		case <-ctx.Done():
			t.Fatalf("no commentAdded event of %s within 2 minutes", id)
		}
	}
	s.Stop(t)
	// After the mutations the stats have shards other than 0, which a
	// rebuild deletes.
	MustRun(t, "rebuild-stats", "-store", spec)
	if !slices.Contains(recordedDynamoCalls()["serve"], "GetRecords") {
		t.Errorf("serve read no stream records (calls: %v)", recordedDynamoCalls()["serve"])
	}
}
