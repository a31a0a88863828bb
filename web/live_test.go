package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// TestLiveClients runs web/live/live.mjs: the real graphql-ws and
// graphql-sse clients against two gateway instances on one DynamoDB Local
// table (and a third on bbolt), built from this repository. It needs
// DYNAMODB_ENDPOINT, node, and the packages web/test.sh installs in
// web/live (npm ci).
func TestLiveClients(t *testing.T) {
	dynamotest.Endpoint(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join("live", "node_modules", "graphql-ws")); err != nil {
		t.Skip("web/live has no node_modules: run web/test.sh, or npm ci in web/live")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "gw")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, node, "live.mjs")
	cmd.Dir = "live"
	cmd.Env = append(os.Environ(), "GATEWAY_BIN="+bin)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("live.mjs: %v", err)
	}
}
