package e2e

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
	"syscall"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/testutil"
)

// serveFlags returns the names of the serve command's flags, as the
// binary's `serve -h` prints them (the flag set itself, nothing copied).
func serveFlags(t *testing.T) []string {
	t.Helper()
	_, stderr, err := runGW(t, nil, "serve", "-h")
	if err != nil {
		t.Fatalf("serve -h: %v (want exit status 0)\n%s", err, stderr)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(stderr, -1) {
		names = append(names, m[1])
	}
	if len(names) < 10 {
		t.Fatalf("serve -h listed %d flags:\n%s", len(names), stderr)
	}
	return names
}

// TestREADMEServeFlagTableIsComplete: the documentation's table of serve
// flags ("Every serve flag, …", in docs/operations.md) has one row per flag
// of the serve command's flag set, no other, and names each flag's
// environment variable right.
func TestREADMEServeFlagTableIsComplete(t *testing.T) {
	table := testutil.DocWith(t, "Every serve flag, its default")
	doc := table.Text
	start := strings.Index(doc, "Every serve flag, its default")
	rows := regexp.MustCompile("(?m)^\\| `-([a-z0-9-]+)` \\| [^|]* \\| `([A-Z0-9_]+)` \\|")
	header := strings.Index(doc[start:], "\n| flag |")
	if header < 0 {
		t.Fatalf(`%s: no "| flag |" table after "Every serve flag"`, table.Path)
	}
	var documented []string
	for _, line := range strings.Split(doc[start+header+1:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := rows.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: flag row not understood: %s", table.Path, line)
			continue
		}
		documented = append(documented, m[1])
		if want := "COMMENTS_" + strings.ToUpper(strings.ReplaceAll(m[1], "-", "_")); m[2] != want {
			t.Errorf("%s: -%s reads %s, want %s", table.Path, m[1], m[2], want)
		}
	}
	flags := serveFlags(t)
	for _, f := range flags {
		if !slices.Contains(documented, f) {
			t.Errorf("serve flag -%s is missing from the flag table of %s", f, table.Path)
		}
	}
	for _, f := range documented {
		if !slices.Contains(flags, f) {
			t.Errorf("%s documents -%s, which serve does not have", table.Path, f)
		}
	}
}

// minShellExamples is how many curl examples README.md and docs/ held when
// they were split into topic documents: fewer means one was lost in a move.
const minShellExamples = 8

// shellExample is one ```sh block of a document.
type shellExample struct {
	doc, script string
}

// shellExamples returns the ```sh blocks of README.md and docs/
// (testutil.Docs) that talk to a running gateway with curl (the others
// build, deploy or start one).
func shellExamples(t *testing.T) []shellExample {
	var out []shellExample
	for _, doc := range testutil.Docs(t) {
		for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(doc.Text, -1) {
			if strings.Contains(m[1], "curl ") && !strings.Contains(m[1], "go run") {
				out = append(out, shellExample{doc.Path, m[1]})
			}
		}
	}
	return out
}

// TestREADMEShellExamplesRun: every curl example of README.md and docs/
// (wherever it moved; docs/archive/ excepted), pasted as
// it is into bash (-e -u -o pipefail), succeeds and prints no GraphQL error
// (unless the example says it shows a refusal). An example that starts its
// own server (`go build -o gw .` then `./gw serve …`) runs in a directory of
// its own, with the test's binary as gw, against that server on the default
// address. Any other runs against the built gateway serving the demo data
// (localhost:8080 and 127.0.0.1:8080 reach it through curl's --connect-to):
// with an API key ($KEY) when the example uses one, else in dev mode (open
// mutations, as `go run .`). A streaming example (curl -N) is cut after a
// few seconds.
func TestREADMEShellExamplesRun(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	examples := shellExamples(t)
	if len(examples) < minShellExamples {
		t.Fatalf("found %d curl examples in README.md and docs/, want at least %d", len(examples), minShellExamples)
	}
	const key = "readme-example-key"
	bin := MustBinary(t)
	servers := map[bool]string{} // by keyed: host:port
	serverFor := func(keyed bool) string {
		if hp, ok := servers[keyed]; ok {
			return hp
		}
		argv := []string{"serve", "-demo", "-addr", "127.0.0.1:0", "-store", "bolt:" + filepath.Join(t.TempDir(), "comments.db")}
		if keyed {
			sum := sha256.Sum256([]byte(key))
			argv = append(argv, "-api-keys", hex.EncodeToString(sum[:]))
		} else {
			argv = append(argv, "-dev")
		}
		s := startServer(t, bin, argv, nil, func(s *Server) { s.Stop(t) })
		servers[keyed] = strings.TrimPrefix(s.URL, "http://")
		return servers[keyed]
	}
	for i, e := range examples {
		ex := e.script
		out, errOut, err := runExample(examplePrelude(ex, serverFor)+ex, exampleDir(t, ex), "KEY="+key, "GW_BIN="+bin)
		failed := err != nil || strings.Contains(out, "null")
		if !strings.Contains(ex, "refused") {
			failed = failed || strings.Contains(out, `"errors"`)
		}
		if failed {
			t.Errorf("%s: example %d failed (%v):\n%s\nstdout:\n%s\nstderr:\n%s", e.doc, i+1, err, ex, tail(out, 2000), tail(errOut, 2000))
		}
	}
}

// examplePrelude defines the curl (and go) an example runs with.
func examplePrelude(ex string, serverFor func(keyed bool) string) string {
	maxTime, cut := "30", ""
	if strings.Contains(ex, "curl -N") {
		maxTime, cut = "3", " || [ $? = 28 ]" // a stream cut by --max-time did what it shows
	}
	curl := "command curl --max-time " + maxTime
	var prelude string
	if strings.Contains(ex, "./gw serve") {
		prelude = `go() { if [ "$*" = "build -o gw ." ]; then cp "$GW_BIN" gw; else command go "$@"; fi; }` + "\n"
	} else {
		hp := serverFor(strings.Contains(ex, "$KEY"))
		curl += " --connect-to localhost:8080:" + hp + " --connect-to 127.0.0.1:8080:" + hp
	}
	return prelude + "curl() { " + curl + ` "$@"` + cut + "; }\n"
}

// exampleDir is where an example runs: its own directory when it builds and
// starts a server (it writes files), else the module's root (where a reader
// pastes it).
func exampleDir(tb testing.TB, ex string) string {
	if strings.Contains(ex, "./gw serve") {
		return tb.TempDir()
	}
	return moduleRoot
}

// runExample runs script in bash -euo pipefail in dir,
// at most two minutes, in a process group of its own that it kills at the
// end: a server the script started in the background never outlives it,
// even when the script fails before its own kill.
func runExample(script, dir string, env ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err = cmd.Start(); err != nil {
		return "", "", err
	}
	pgid := cmd.Process.Pid
	err = cmd.Wait()
	_ = syscall.Kill(-pgid, syscall.SIGTERM) // whatever it left running
	return out.String(), errb.String(), err
}
