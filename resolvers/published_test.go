package resolvers_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/resolvers"
)

// TestPublishedFilesAreCurrent: schema/schema.graphql and
// schema/error-codes.json are what the code publishes (go generate ./...
// rewrites them).
func TestPublishedFilesAreCurrent(t *testing.T) {
	for name, want := range map[string][]byte{"schema.graphql": resolvers.SDL(), "error-codes.json": resolvers.ErrorCodesJSON()} {
		got, err := os.ReadFile(filepath.Join("..", "schema", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("schema/%s is not current (%v): run go generate ./...", name, err)
		}
	}
	sdl := string(resolvers.SDL())
	for _, want := range []string{"type Query {", "type Mutation {", "type Subscription {", "commentAdded(", "scalar Time", "directive @cacheControl("} {
		if !strings.Contains(sdl, want) {
			t.Errorf("the SDL lacks %q", want)
		}
	}
	for _, federation := range []string{"@link", "@key", "_entities", "_service", "_Any"} {
		if strings.Contains(sdl, federation) {
			t.Errorf("the SDL for client tools has Federation's %s", federation)
		}
	}
}

// TestSDLBuildsWithGraphQLJS: graphql-js's buildSchema, which GraphQL
// Codegen uses, builds the published SDL with its three root types. It
// needs node and the graphql package (web/test.sh installs it in
// web/node_modules; or NODE_PATH).
func TestSDLBuildsWithGraphQLJS(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	const script = `let g; try { g = require('graphql') } catch { console.log('NO_GRAPHQL'); process.exit(0) }
const s = g.buildSchema(require('fs').readFileSync(0, 'utf8'));
console.log([s.getQueryType(), s.getMutationType(), s.getSubscriptionType()].map(t => t && t.name).join(' '))`
	cmd := exec.Command(node, "-e", script)
	web, _ := filepath.Abs(filepath.Join("..", "web"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+strings.Join([]string{os.Getenv("NODE_PATH"), filepath.Join(web, "node_modules"), filepath.Join(web, "live", "node_modules")}, string(os.PathListSeparator)))
	cmd.Stdin = bytes.NewReader(resolvers.SDL())
	out, err := cmd.CombinedOutput()
	switch {
	case strings.TrimSpace(string(out)) == "NO_GRAPHQL":
		t.Skip("no graphql package for node: run web/test.sh (npm ci in web/) or set NODE_PATH")
	case err != nil:
		t.Fatalf("buildSchema: %v\n%s", err, out)
	case strings.TrimSpace(string(out)) != "Query Mutation Subscription":
		t.Errorf("buildSchema's root types: %s", out)
	}
}
