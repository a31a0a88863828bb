package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// readme returns README.md.
func readme(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// serveFlags returns the names of the serve command's flags, as its -h
// prints them (the flag set itself, nothing copied).
func serveFlags(t *testing.T) []string {
	t.Helper()
	var out, errb bytes.Buffer
	_ = run(context.Background(), []string{"serve", "-h"}, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(errb.String(), -1) {
		names = append(names, m[1])
	}
	if len(names) < 10 {
		t.Fatalf("serve -h listed %d flags:\n%s", len(names), errb.String())
	}
	return names
}

// TestREADMEServeFlagTableIsComplete: the README's table of serve flags
// ("Every serve flag, …") has one row per flag of the serve command's flag
// set, no other, and names each flag's environment variable right.
func TestREADMEServeFlagTableIsComplete(t *testing.T) {
	doc := readme(t)
	start := strings.Index(doc, "Every serve flag")
	if start < 0 {
		t.Fatal(`README.md has no "Every serve flag" table`)
	}
	rows := regexp.MustCompile("(?m)^\\| `-([a-z0-9-]+)` \\| [^|]* \\| `([A-Z0-9_]+)` \\|")
	header := strings.Index(doc[start:], "\n| flag |")
	if header < 0 {
		t.Fatal(`README.md: no "| flag |" table after "Every serve flag"`)
	}
	var documented []string
	for _, line := range strings.Split(doc[start+header+1:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := rows.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("README flag row not understood: %s", line)
			continue
		}
		documented = append(documented, m[1])
		if want := "COMMENTS_" + strings.ToUpper(strings.ReplaceAll(m[1], "-", "_")); m[2] != want {
			t.Errorf("README: -%s reads %s, want %s", m[1], m[2], want)
		}
	}
	flags := serveFlags(t)
	for _, f := range flags {
		if !slices.Contains(documented, f) {
			t.Errorf("serve flag -%s is missing from the README's flag table", f)
		}
	}
	for _, f := range documented {
		if !slices.Contains(flags, f) {
			t.Errorf("the README documents -%s, which serve does not have", f)
		}
	}
}

// shellExamples returns the README's ```sh blocks that talk to a running
// gateway with curl (the others build, deploy or start one).
func shellExamples(doc string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		if strings.Contains(m[1], "curl ") && !strings.Contains(m[1], "go run") {
			out = append(out, m[1])
		}
	}
	return out
}

// TestREADMEShellExamplesRun: every curl example of the README, pasted as
// it is into bash (-e -u -o pipefail), succeeds against the built gateway
// serving the demo data (requests to localhost:8080 reach it through curl's
// --connect-to; $KEY is an API key it accepts), and prints no GraphQL error.
func TestREADMEShellExamplesRun(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	examples := shellExamples(readme(t))
	if len(examples) < 3 {
		t.Fatalf("found %d curl examples in README.md", len(examples))
	}
	const key = "readme-example-key"
	sum := sha256.Sum256([]byte(key))
	s := startServer(t, MustBinary(t), []string{"serve", "-addr", "127.0.0.1:0", "-store", "bolt:" + filepath.Join(t.TempDir(), "comments.db"),
		"-api-keys", hex.EncodeToString(sum[:])}, func(s *Server) { s.Stop(t) })
	hostPort := strings.TrimPrefix(s.URL, "http://")
	prelude := "curl() { command curl --max-time 30 --connect-to localhost:8080:" + hostPort + " \"$@\"; }\n"
	for i, ex := range examples {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", prelude+ex)
		cmd.Env = append(os.Environ(), "KEY="+key)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		cancel()
		if err != nil || strings.Contains(out.String(), `"errors"`) || strings.Contains(out.String(), "null") {
			t.Errorf("README example %d failed (%v):\n%s\nstdout:\n%s\nstderr:\n%s", i+1, err, ex, tail(out.String(), 2000), tail(errb.String(), 2000))
		}
	}
}
