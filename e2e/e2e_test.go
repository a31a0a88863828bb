//go:build unix

package e2e

// End-to-end tests of the gateway binary.
//
// The binary is built once with -race and run as a real process: `import`
// loads a data set that this file generates (its own small deterministic
// generator, not package demo), `serve` answers GraphQL over HTTP on
// 127.0.0.1:0, and `rebuild-stats` recounts. Every answer is compared with a
// recount done here, in plain Go, from the raw records (or, after mutations,
// from the state the test tracked) — no code of the store, jsonl or demo
// packages computes an expectation.
//
// TestAPIAgreesWithARecount runs the same suite twice: on the embedded store (bolt) and on
// DynamoDB, the latter only when DYNAMODB_ENDPOINT names a server
// (./scripts/test.sh starts DynamoDB Local and sets it).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	storetable "github.com/acme/comments-gateway/store/table"
)

// Bounds on every wait.
const (
	e2eBuildTimeout   = 10 * time.Minute // go build -race
	e2eCommandTimeout = 3 * time.Minute  // import, create-table, rebuild-stats
	e2eListenTimeout  = 30 * time.Second // serve prints its address
	e2eStopTimeout    = 30 * time.Second // serve exits after SIGTERM
	e2eRequestTimeout = 60 * time.Second // one HTTP request
	e2eWorkers        = 4                // filters walked in parallel
	e2eMutators       = 8                // concurrent mutation goroutines
)

// ---------------------------------------------------------------------------
// The binary and its processes.
// ---------------------------------------------------------------------------

// e2eBinaries holds the gateway binaries this test process built: the
// race-enabled one every suite runs, and the plain one the budget suite
// measures (the race detector multiplies CPU and memory).
var e2eBinaries struct {
	mu    sync.Mutex
	dir   string
	built map[bool]builtBinary // by race
}

type builtBinary struct {
	path string
	err  error
}

// TestMain runs the tests and removes the binaries they built. A binary is
// built once per test process, on first use (MustBinary, MustPlainBinary),
// so that `go test -short` or a -run that needs none builds nothing.
func TestMain(m *testing.M) {
	code := m.Run()
	if e2eBinaries.dir != "" {
		os.RemoveAll(e2eBinaries.dir)
	}
	os.Exit(code)
}

// MustBinary builds the gateway with `go build -race` (the go command from
// PATH) once per test process and returns the binary's path.
func MustBinary(tb testing.TB) string {
	tb.Helper()
	return mustBuild(tb, true)
}

// MustPlainBinary builds the gateway without the race detector, as it is
// deployed, once per test process and returns the binary's path.
func MustPlainBinary(tb testing.TB) string {
	tb.Helper()
	return mustBuild(tb, false)
}

func mustBuild(tb testing.TB, race bool) string {
	tb.Helper()
	e2eBinaries.mu.Lock()
	defer e2eBinaries.mu.Unlock()
	b, ok := e2eBinaries.built[race]
	if !ok {
		b = buildBinary(race)
		if e2eBinaries.built == nil {
			e2eBinaries.built = map[bool]builtBinary{}
		}
		e2eBinaries.built[race] = b
	}
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// moduleRoot is the directory of package main (this package's parent), the
// one the binary is built from and the README is read in.
const moduleRoot = ".."

// buildBinary runs `go build [-race]` in moduleRoot; e2eBinaries.mu is held.
func buildBinary(race bool) builtBinary {
	if e2eBinaries.dir == "" {
		dir, err := os.MkdirTemp("", "comments-gateway-e2e-")
		if err != nil {
			return builtBinary{err: err}
		}
		e2eBinaries.dir = dir
	}
	args, name := []string{"build", "-race"}, "gw-race"
	if !race {
		args, name = []string{"build"}, "gw"
	}
	bin := filepath.Join(e2eBinaries.dir, name)
	ctx, cancel := context.WithTimeout(context.Background(), e2eBuildTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", bin, ".")...)
	cmd.Dir = moduleRoot
	cmd.WaitDelay = 10 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return builtBinary{err: fmt.Errorf("go %s -o %s %s (after %s): %v\n%s", strings.Join(args, " "), bin, moduleRoot, time.Since(start).Round(time.Millisecond), err, out)}
	}
	return builtBinary{path: bin}
}

// gwEnv is the environment of every gateway process running command
// (args[0]): the test's, without COMMENTS_* variables (the flags say
// everything), and with the AWS settings DynamoDB Local needs when
// DYNAMODB_ENDPOINT is set, its calls going through the recorder of the
// IAM test (dynamoEnv).
func gwEnv(args ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "COMMENTS_") && !strings.HasPrefix(kv, "AWS_ENDPOINT_URL_DYNAMODB=") && !strings.HasPrefix(kv, "AWS_SDK_UA_APP_ID=") {
			env = append(env, kv)
		}
	}
	if os.Getenv("DYNAMODB_ENDPOINT") != "" {
		def := func(k, v string) {
			if os.Getenv(k) == "" {
				env = append(env, k+"="+v)
			}
		}
		command := "unknown"
		if len(args) > 0 {
			command = args[0]
		}
		env = append(env, dynamoEnv(command)...)
		def("AWS_REGION", "us-east-1")
		def("AWS_ACCESS_KEY_ID", "local")
		def("AWS_SECRET_ACCESS_KEY", "local")
		def("AWS_EC2_METADATA_DISABLED", "true")
	}
	return env
}

// MustRun runs `gw ARGS...` to completion (at most e2eCommandTimeout) and
// returns its standard output; a non-zero exit or a data race fails tb.
func MustRun(tb testing.TB, args ...string) string {
	tb.Helper()
	bin := MustBinary(tb)
	ctx, cancel := context.WithTimeout(context.Background(), e2eCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = gwEnv(args...)
	cmd.Dir = tb.TempDir()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("gw %s: %v (after %s)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err,
			time.Since(start).Round(time.Millisecond), stdout.String(), tail(stderr.String(), 4000))
	}
	if strings.Contains(stderr.String(), "DATA RACE") {
		tb.Fatalf("gw %s: data race:\n%s", strings.Join(args, " "), tail(stderr.String(), 8000))
	}
	tb.Logf("gw %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return stdout.String()
}

// runGW runs `gw ARGS...` (bounded by e2eCommandTimeout) with env
// (KEY=VALUE pairs added to gwEnv) and returns its output and its exit
// error, for the tests of what a command prints or refuses.
func runGW(tb testing.TB, env []string, args ...string) (stdout, stderr string, err error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, MustBinary(tb), args...)
	cmd.Env = append(gwEnv(args...), env...)
	cmd.Dir = tb.TempDir()
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if strings.Contains(e.String(), "DATA RACE") {
		tb.Errorf("gw %s: data race:\n%s", strings.Join(args, " "), tail(e.String(), 8000))
	}
	return o.String(), e.String(), err
}

// errorLine is the line `gw` prints on standard error when a command fails
// ("error: " and the error, its last line), without the prefix; "" when
// there is none.
func errorLine(stderr string) (msg string) {
	for _, line := range strings.Split(stderr, "\n") {
		if m, ok := strings.CutPrefix(line, "error: "); ok {
			msg = m
		}
	}
	return msg
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// firstLineWriter keeps what the process writes and hands over its first line.
type firstLineWriter struct {
	testutil.SyncBuffer
	mu   sync.Mutex
	line chan string // capacity 1
	sent bool
}

func (w *firstLineWriter) Write(p []byte) (int, error) {
	w.SyncBuffer.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.sent {
		if s := w.String(); strings.Contains(s, "\n") {
			w.sent = true
			w.line <- s[:strings.IndexByte(s, '\n')]
		}
	}
	return len(p), nil
}

// Server is a running `gw serve` process.
type Server struct {
	URL      string // http://127.0.0.1:PORT
	cmd      *exec.Cmd
	stderr   *testutil.SyncBuffer
	stdout   *firstLineWriter // what it printed on its standard output
	exited   chan struct{}    // closed when the process has exited
	waitErr  error            // valid once exited is closed
	stopOnce sync.Once
	API      *gqltest.Client // its /graphql
	root     *gqltest.Client // its other paths, with API's connections
	requests atomic.Int64
}

var listeningRE = regexp.MustCompile(`^listening on http://(127\.0\.0\.1:[0-9]+)/graphql `)

// MustStartServer starts `gw serve -addr 127.0.0.1:0 -demo=false
// -open-mutations -graphiql ARGS...` (production mode with open mutations),
// learns its address from the first line of its standard output, and
// registers a cleanup that stops it with SIGTERM and checks that it exits
// cleanly.
func MustStartServer(tb testing.TB, args ...string) *Server {
	tb.Helper()
	// The suite's snapshot query reads every product × language and every
	// leaderboard in one request (111 aliases, dozens of topProducts(first:
	// 100) lists): larger than the client limits, which
	// resolvers/limits_test.go covers.
	argv := append([]string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-open-mutations", "-graphiql", "-max-aliases", "1000", "-max-complexity", "1000000", "-max-selections", "100000"}, args...)
	return startServer(tb, MustBinary(tb), argv, nil, func(s *Server) { s.Stop(tb) })
}

// startServer runs the binary bin with argv (a `serve` command on
// 127.0.0.1:0) and env (KEY=VALUE pairs added to gwEnv), registers stop as
// its cleanup before anything can fail, and learns its address from the
// first line of its standard output.
func startServer(tb testing.TB, bin string, argv, env []string, stop func(*Server)) *Server {
	tb.Helper()
	cmd := exec.Command(bin, argv...)
	cmd.Env = append(gwEnv(argv...), env...)
	cmd.Dir = tb.TempDir()
	stdout := &firstLineWriter{line: make(chan string, 1)}
	s := &Server{cmd: cmd, stderr: &testutil.SyncBuffer{}, stdout: stdout, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = stdout, s.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting gw %s: %v", strings.Join(argv, " "), err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	tb.Cleanup(func() { stop(s) })

	timer := time.NewTimer(e2eListenTimeout)
	defer timer.Stop()
	var line string
	select {
	case line = <-stdout.line:
	case <-s.exited:
		tb.Fatalf("gw %s exited before listening: %v\nstderr:\n%s", strings.Join(argv, " "), s.waitErr, tail(s.stderr.String(), 4000))
	case <-timer.C:
		tb.Fatalf("gw %s printed no address within %s\nstderr:\n%s", strings.Join(argv, " "), e2eListenTimeout, tail(s.stderr.String(), 4000))
	}
	m := listeningRE.FindStringSubmatch(line)
	if m == nil {
		tb.Fatalf("gw serve: first line %q is not `listening on http://127.0.0.1:PORT/graphql ...`", line)
	}
	s.URL = "http://" + m[1]
	s.API = gqltest.New(s.URL + "/graphql")
	s.API.HTTP.Timeout = e2eRequestTimeout
	s.root = &gqltest.Client{URL: s.URL, HTTP: s.API.HTTP}
	tb.Logf("gw %s: %s (pid %d)", strings.Join(argv[1:], " "), s.URL, cmd.Process.Pid)
	return s
}

// Stop sends SIGTERM to the server's pid, waits (bounded) for it to exit,
// and reports an unclean exit, a data race, or a line of a JSON log (the
// production default) that is not JSON. It is idempotent.
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	s.stopOnce.Do(func() {
		if s.API != nil {
			s.API.HTTP.CloseIdleConnections()
		}
		pid := s.cmd.Process.Pid
		select {
		case <-s.exited:
			tb.Errorf("gw serve (pid %d) had exited before it was stopped: %v\nstderr:\n%s", pid, s.waitErr, tail(s.stderr.String(), 4000))
			return
		default:
		}
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			tb.Errorf("SIGTERM to gw serve (pid %d): %v", pid, err)
		}
		timer := time.NewTimer(e2eStopTimeout)
		defer timer.Stop()
		select {
		case <-s.exited:
		case <-timer.C:
			_ = syscall.Kill(pid, syscall.SIGKILL)
			select {
			case <-s.exited:
			case <-time.After(10 * time.Second):
			}
			tb.Errorf("gw serve (pid %d) did not exit within %s of SIGTERM (killed)\nstderr:\n%s", pid, e2eStopTimeout, tail(s.stderr.String(), 4000))
			return
		}
		if s.waitErr != nil {
			tb.Errorf("gw serve (pid %d) did not shut down cleanly on SIGTERM: %v\nstderr:\n%s", pid, s.waitErr, tail(s.stderr.String(), 8000))
		} else if strings.Contains(s.stderr.String(), "DATA RACE") {
			tb.Errorf("gw serve (pid %d): data race:\n%s", pid, tail(s.stderr.String(), 8000))
		} else if log := s.stderr.String(); strings.HasPrefix(log, "{") {
			if n, line := nonJSONLine(log); n > 0 { // a JSON log (production) is JSON throughout
				tb.Errorf("gw serve (pid %d): log line %d is not JSON: %q", pid, n, line)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// GraphQL over HTTP.
// ---------------------------------------------------------------------------

// HTTP sends one request to path and returns the status and body. A 5xx
// answer is an error: no input may ever produce one.
func (s *Server) HTTP(ctx context.Context, method, path string, body []byte, header map[string]string) (int, []byte, error) {
	var opts []gqltest.Option
	for k, v := range header {
		opts = append(opts, gqltest.Header(k, v))
	}
	s.requests.Add(1)
	r, err := s.root.Send(ctx, method, path, body, opts...)
	if err != nil {
		return 0, nil, err
	}
	return r.Status, r.Body, no5xx(method, path, r)
}

// no5xx is the error of a 5xx answer: no input may ever produce one.
func no5xx(method, path string, r *gqltest.Response) error {
	if r.Status >= 500 {
		return fmt.Errorf("%s %s: HTTP %d (a 5xx is never allowed): %.500s", method, path, r.Status, r.Body)
	}
	return nil
}

// Do sends a GraphQL request, by POST (JSON body) or GET (query string);
// a 5xx answer is an error.
func (s *Server) Do(ctx context.Context, method, query string, vars map[string]any) (*gqltest.Response, error) {
	var opts []gqltest.Option
	switch method {
	case http.MethodPost:
	case http.MethodGet:
		opts = append(opts, gqltest.GET())
	default:
		panic(method)
	}
	s.requests.Add(1)
	r, err := s.API.Do(ctx, query, vars, opts...)
	if r != nil {
		if err5xx := no5xx(method, "/graphql", r); err5xx != nil {
			return r, err5xx // whether or not its body is JSON
		}
	}
	return r, err
}

// errorLog returns the server's last log lines at level ERROR (an INTERNAL
// or UNAVAILABLE answer logs its cause there), for a failed request's
// message; "" when there are none.
func (s *Server) errorLog() string {
	var lines []string
	for _, l := range strings.Split(s.stderr.String(), "\n") {
		if strings.Contains(l, `"level":"ERROR"`) || strings.Contains(l, "level=ERROR") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "\nserver errors (last 3):\n" + strings.Join(lines[max(0, len(lines)-3):], "\n")
}

// Query posts a GraphQL request that must succeed (HTTP 200, no errors)
// and decodes its data into out (when not nil).
func (s *Server) Query(ctx context.Context, query string, vars map[string]any, out any) error {
	r, err := s.Do(ctx, http.MethodPost, query, vars)
	if err != nil {
		return err
	}
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		return fmt.Errorf("HTTP %d, errors: %s%s", r.Status, r.ErrorSummary(), s.errorLog())
	}
	if out != nil {
		return r.Decode(out)
	}
	return nil
}

// MustQuery is Query that fails tb on an error.
func MustQuery(tb testing.TB, s *Server, query string, vars map[string]any, out any) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	if err := s.Query(ctx, query, vars, out); err != nil {
		tb.Fatalf("%v\nquery: %s\nvariables: %s", err, oneLine(query), mustJSON(vars))
	}
}

// MustErrorCode posts a request that must fail with extensions.code want
// (and never a 5xx).
func MustErrorCode(tb testing.TB, s *Server, name, query string, vars map[string]any, want string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	r, err := s.Do(ctx, http.MethodPost, query, vars)
	switch {
	case err != nil:
		tb.Errorf("%s: %v\nquery: %s\nvariables: %.300s", name, err, oneLine(query), mustJSON(vars))
	case len(r.Errors) == 0:
		tb.Errorf("%s: want a %s error, got HTTP %d with data %.300s\nquery: %s\nvariables: %.300s", name, want, r.Status, r.Data, oneLine(query), mustJSON(vars))
	case r.Code() != want:
		tb.Errorf("%s: want extensions.code %s, got HTTP %d, errors: %s\nquery: %s\nvariables: %.300s", name, want, r.Status, r.ErrorSummary(), oneLine(query), mustJSON(vars))
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ---------------------------------------------------------------------------
// The data set: generated here, deterministically.
// ---------------------------------------------------------------------------

// rec is one comment as the test knows it.
type rec struct {
	ID, Product, Lang string // Lang canonical
	Rating            int
	Author            string
	Title             string
	Body              string
	CreatedAt         time.Time
}

// e2eProducts are the generated products and their comments per rating
// (index 1..5).
var e2eProducts = []struct {
	id     string
	counts [6]int
}{
	{"kettle-XL", [6]int{0, 60, 25, 45, 150, 320}}, // 600; every rating, but no French 2-star comment
	{"grinder_2", [6]int{0, 10, 5, 8, 27, 50}},     // 100
	{"Mug-07", [6]int{0, 4, 0, 6, 10, 20}},         // 40, no 2-star comment
	{"toaster-2", [6]int{0, 2, 3, 1, 4, 5}},        // 15; ties "toaster" on 5-star count (and has it as a prefix)
	{"toaster", [6]int{0, 1, 2, 0, 4, 5}},          // 12, no 3-star comment
	{"aa-one", [6]int{0, 0, 0, 0, 1, 0}},           // exactly one comment, no 5-star one
}

const (
	e2eBig          = "kettle-XL"
	e2eEmptyProduct = "zz-empty" // a catalog id without comments
	e2eNoLang       = "ja"       // a language no comment has
	e2eNewLang      = "it"       // a language only the mutations add
	e2eTieRunStart  = 200        // kettle-XL's comments 200..234 share one createdAt
	e2eTieRunLen    = 35
)

// e2eLangs are the data set's languages (canonical), most common first.
var e2eLangs = []string{"en", "de", "pt-BR", "fr"}

// langVariants are spellings the import file uses for each language.
var langVariants = map[string][]string{
	"en": {"EN", "En"}, "de": {"DE"}, "pt-BR": {"pt-br", "PT-BR", "pt-Br"}, "fr": {"FR"},
}

// canonLang is the test's own canonicalisation of the tags it uses.
func canonLang(s string) string {
	switch strings.ToLower(s) {
	case "pt-br":
		return "pt-BR"
	case "en", "de", "fr", "ja", "it":
		return strings.ToLower(s)
	}
	return s
}

var (
	e2eAuthors = []string{"Ann", "Jürgen", "Zoë", "José Álvarez", "Søren", "李雷", "Анна", "O'Brien", `Chloé "Coco"`, "dev_42"}
	e2eTitles  = []string{"Great", "Nicht gut", "Muito bom 👍", "Bof", "Five stars!", "Does the job", "Çok iyi", "<b>not html</b>", `Back\slash`, "Non\u00a0breaking\u200bspaces"}
	e2eBodies  = []string{
		"Works as described.", "Arrived a day late,\tbut fine.", "Die Qualität ist hervorragend.",
		"Chegou rápido e bem embalado.", "Le goût est parfait.", "Line one\nline two.",
		"Emoji 🚀 and ünïcödé.", `Quotes: "double" and 'single'.`, "Price/performance: 10/10 & more <3.",
	}
	e2eIDAlphabet = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
	// ids in kettle-XL's run of equal createdAt: prefixes of each other, and
	// every character class, so that "id descending" is tested bytewise.
	e2eTieIDs = []string{"tie", "tie-", "tie0", "tieA", "tie_", "tiea"}
)

// generateE2EData returns the data set: 768 comments of six products, with
// skewed ratings and languages, runs of equal createdAt, and mixed-case ids
// of varying length.
func generateE2EData() []*rec {
	r := rand.New(rand.NewPCG(20250601, 7))
	seen := map[string]bool{}
	for _, id := range e2eTieIDs {
		seen[id] = true
	}
	newID := func() string {
		for {
			b := make([]byte, 10+r.IntN(11))
			for i := range b {
				b[i] = e2eIDAlphabet[r.IntN(len(e2eIDAlphabet))]
			}
			if id := string(b); !seen[id] {
				seen[id] = true
				return id
			}
		}
	}
	pickLang := func() string {
		switch k := r.IntN(100); {
		case k < 50:
			return "en"
		case k < 75:
			return "de"
		case k < 90:
			return "pt-BR"
		default:
			return "fr"
		}
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []*rec
	for pi, p := range e2eProducts {
		var ratings []int
		for rating := 1; rating <= 5; rating++ {
			for range p.counts[rating] {
				ratings = append(ratings, rating)
			}
		}
		r.Shuffle(len(ratings), func(i, j int) { ratings[i], ratings[j] = ratings[j], ratings[i] })
		t := base.Add(time.Duration(pi) * 7 * time.Hour)
		for i, rating := range ratings {
			inTieRun := p.id == e2eBig && i > e2eTieRunStart && i < e2eTieRunStart+e2eTieRunLen
			if !inTieRun && (i == 0 || r.IntN(4) != 0) { // else: the same createdAt as the previous one
				t = t.Add(time.Duration(1+r.IntN(7200)) * time.Second)
				switch r.IntN(4) {
				case 1:
					t = t.Add(time.Duration(r.IntN(1000)) * time.Millisecond)
				case 2:
					t = t.Add(time.Duration(r.IntN(1_000_000)) * time.Microsecond)
				case 3:
					t = t.Add(time.Duration(r.IntN(1_000_000_000)))
				}
			}
			lang := pickLang()
			if p.id == e2eBig && lang == "fr" && rating == 2 {
				lang = "en"
			}
			id := newID()
			if p.id == e2eBig && i >= e2eTieRunStart && i-e2eTieRunStart < len(e2eTieIDs) {
				id = e2eTieIDs[i-e2eTieRunStart]
			}
			body := e2eBodies[r.IntN(len(e2eBodies))]
			for range r.IntN(3) {
				body += " " + e2eBodies[r.IntN(len(e2eBodies))]
			}
			out = append(out, &rec{
				ID: id, Product: p.id, Lang: lang, Rating: rating,
				Author:    e2eAuthors[r.IntN(len(e2eAuthors))],
				Title:     fmt.Sprintf("%s #%d", e2eTitles[r.IntN(len(e2eTitles))], i),
				Body:      body,
				CreatedAt: t,
			})
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// writeJSONL writes recs as the import format: language spellings and time
// offsets vary, a blank line and some CRLF endings are mixed in.
func writeJSONL(tb testing.TB, recs []*rec) string {
	tb.Helper()
	r := rand.New(rand.NewPCG(42, 42))
	zones := []*time.Location{time.FixedZone("", 5*3600+1800), time.FixedZone("", -8*3600)}
	var b bytes.Buffer
	for i, c := range recs {
		lang := c.Lang
		if v := langVariants[lang]; r.IntN(4) == 0 {
			lang = v[r.IntN(len(v))]
		}
		at := c.CreatedAt.UTC()
		if k := r.IntN(10); k >= 7 {
			at = at.In(zones[k%2])
		}
		line, err := json.Marshal(struct {
			ID        string `json:"id"`
			ProductID string `json:"productId"`
			Language  string `json:"language"`
			Rating    int    `json:"rating"`
			Author    string `json:"author"`
			Title     string `json:"title"`
			Body      string `json:"body"`
			CreatedAt string `json:"createdAt"`
		}{c.ID, c.Product, lang, c.Rating, c.Author, c.Title, c.Body, at.Format(time.RFC3339Nano)})
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(line)
		if i%50 == 49 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
		if i == 100 {
			b.WriteString("\n")
		}
	}
	path := filepath.Join(tb.TempDir(), "e2e.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// ---------------------------------------------------------------------------
// The oracle: a recount in plain Go.
// ---------------------------------------------------------------------------

// displayBefore says whether a comes before b in the display order: newest
// first, equal times by id descending (bytewise).
func displayBefore(a, b *rec) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

// ratingSel is a ratings argument: null (all) or a list ([] = none).
type ratingSel struct {
	null bool
	list []int
}

var ratingsAll = ratingSel{null: true}

func ratingsOf(rs ...int) ratingSel { return ratingSel{list: append([]int{}, rs...)} }

func (s ratingSel) has(r int) bool { return s.null || slices.Contains(s.list, r) }

func (s ratingSel) value() any {
	if s.null {
		return nil
	}
	return s.list // never nil: [] is sent as []
}

func (s ratingSel) String() string {
	if s.null {
		return "null"
	}
	return mustJSON(s.list)
}

// filter is a comments filter as sent (lang nil = all languages, otherwise
// the tag as sent, which may be a non-canonical spelling).
type filter struct {
	pid  string
	lang *string
	sel  ratingSel
}

func strp(s string) *string { return &s }

func (f filter) String() string {
	l := "null"
	if f.lang != nil {
		l = strconv.Quote(*f.lang)
	}
	return fmt.Sprintf("product %q language %s ratings %s", f.pid, l, f.sel)
}

func (f filter) match(c *rec) bool {
	return c.Product == f.pid && (f.lang == nil || c.Lang == canonLang(*f.lang)) && f.sel.has(c.Rating)
}

// oracleList returns the comments f matches, in display order.
func oracleList(recs []*rec, f filter) []*rec {
	var out []*rec
	for _, c := range recs {
		if f.match(c) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return displayBefore(out[i], out[j]) })
	return out
}

// oracleCounts returns the comments of pid (in lang, "" = all) per rating.
func oracleCounts(recs []*rec, pid, lang string) (counts [6]int, total int) {
	for _, c := range recs {
		if c.Product == pid && (lang == "" || c.Lang == lang) {
			counts[c.Rating]++
			total++
		}
	}
	return counts, total
}

type langTotal struct {
	Language string `json:"language"`
	Total    int    `json:"total"`
}

func oracleLanguages(recs []*rec, pid string) map[string]int {
	m := map[string]int{}
	for _, c := range recs {
		if c.Product == pid {
			m[c.Lang]++
		}
	}
	return m
}

type rankJSON struct {
	Rank          int `json:"rank"`
	FiveStarCount int `json:"fiveStarCount"`
	Product       struct {
		ID string `json:"id"`
	} `json:"product"`
}

type rank struct {
	pid  string
	five int
}

// oracleTop returns the 5-star leaderboard (in lang, "" = all): 5-star
// count descending, product id descending; only products with a 5-star
// comment; at most n.
func oracleTop(recs []*rec, lang string, n int) []rank {
	m := map[string]int{}
	for _, c := range recs {
		if c.Rating == 5 && (lang == "" || c.Lang == lang) {
			m[c.Product]++
		}
	}
	var out []rank
	for pid, k := range m {
		out = append(out, rank{pid, k})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].five != out[j].five {
			return out[i].five > out[j].five
		}
		return out[i].pid > out[j].pid
	})
	return out[:min(n, len(out))]
}

// e2eModel is the comments the test expects the store to hold.
type e2eModel struct {
	mu   sync.Mutex
	recs map[string]rec
}

func newModel(recs []*rec) *e2eModel {
	m := &e2eModel{recs: map[string]rec{}}
	for _, c := range recs {
		m.recs[c.ID] = *c
	}
	return m
}

func (m *e2eModel) put(c rec) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[c.ID] = c
}

func (m *e2eModel) remove(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, id)
}

func (m *e2eModel) get(id string) (rec, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.recs[id]
	return c, ok
}

// all returns a copy of the expected comments.
func (m *e2eModel) all() []*rec {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*rec, 0, len(m.recs))
	for _, c := range m.recs {
		out = append(out, &c)
	}
	return out
}

// ---------------------------------------------------------------------------
// Comparing answers with the oracle.
// ---------------------------------------------------------------------------

type commentJSON struct {
	ID        string `json:"id"`
	Language  string `json:"language"`
	Rating    int    `json:"rating"`
	Author    string `json:"author"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	CreatedAt string `json:"createdAt"`
	Product   *struct {
		ID string `json:"id"`
	} `json:"product"`
}

const commentFields = `id language rating author title body createdAt product { id }`

// checkComment compares a comment the server returned with the expected one.
func checkComment(got commentJSON, want *rec) error {
	var diffs []string
	if got.ID != want.ID {
		diffs = append(diffs, fmt.Sprintf("id %q, want %q", got.ID, want.ID))
	}
	if got.Product == nil || got.Product.ID != want.Product {
		diffs = append(diffs, fmt.Sprintf("product %v, want %q", got.Product, want.Product))
	}
	if got.Language != want.Lang {
		diffs = append(diffs, fmt.Sprintf("language %q, want %q", got.Language, want.Lang))
	}
	if got.Rating != want.Rating {
		diffs = append(diffs, fmt.Sprintf("rating %d, want %d", got.Rating, want.Rating))
	}
	if got.Author != want.Author {
		diffs = append(diffs, fmt.Sprintf("author %.80q, want %.80q", got.Author, want.Author))
	}
	if got.Title != want.Title {
		diffs = append(diffs, fmt.Sprintf("title %.80q, want %.80q", got.Title, want.Title))
	}
	if got.Body != want.Body {
		diffs = append(diffs, fmt.Sprintf("body %.80q, want %.80q", got.Body, want.Body))
	}
	at, err := time.Parse(time.RFC3339Nano, got.CreatedAt)
	switch {
	case err != nil:
		diffs = append(diffs, fmt.Sprintf("createdAt %q: %v", got.CreatedAt, err))
	case !at.Equal(want.CreatedAt) || !strings.HasSuffix(got.CreatedAt, "Z"):
		diffs = append(diffs, fmt.Sprintf("createdAt %q, want %s", got.CreatedAt, want.CreatedAt.UTC().Format(time.RFC3339Nano)))
	}
	if diffs != nil {
		return fmt.Errorf("comment %s: %s", want.ID, strings.Join(diffs, ", "))
	}
	return nil
}

type connJSON struct {
	TotalCount int `json:"totalCount"`
	PageInfo   struct {
		HasNextPage     bool    `json:"hasNextPage"`
		HasPreviousPage bool    `json:"hasPreviousPage"`
		StartCursor     *string `json:"startCursor"`
		EndCursor       *string `json:"endCursor"`
	} `json:"pageInfo"`
	Edges []struct {
		Cursor string      `json:"cursor"`
		Node   commentJSON `json:"node"`
	} `json:"edges"`
	Nodes []struct {
		ID string `json:"id"`
	} `json:"nodes"`
}

const walkQuery = `query Walk($pid: ID!, $lang: String, $ratings: [Int!], $first: Int, $after: String, $last: Int, $before: String) {
  product(id: $pid) {
    comments(language: $lang, ratings: $ratings, first: $first, after: $after, last: $last, before: $before) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { ` + commentFields + ` } }
      nodes { id }
    }
  }
}`

// pageArgs are a page request's paging arguments (nil = omitted).
type pageArgs struct {
	first, last   *int
	after, before *string
}

func intp(n int) *int { return &n }

func (a pageArgs) String() string {
	var parts []string
	if a.first != nil {
		parts = append(parts, fmt.Sprintf("first %d", *a.first))
	}
	if a.last != nil {
		parts = append(parts, fmt.Sprintf("last %d", *a.last))
	}
	if a.after != nil {
		parts = append(parts, fmt.Sprintf("after %q", *a.after))
	}
	if a.before != nil {
		parts = append(parts, fmt.Sprintf("before %q", *a.before))
	}
	return strings.Join(parts, " ")
}

func walkVars(f filter, a pageArgs) map[string]any {
	v := map[string]any{"pid": f.pid, "ratings": f.sel.value()}
	if f.lang != nil {
		v["lang"] = *f.lang
	} else {
		v["lang"] = nil
	}
	if a.first != nil {
		v["first"] = *a.first
	}
	if a.last != nil {
		v["last"] = *a.last
	}
	if a.after != nil {
		v["after"] = *a.after
	}
	if a.before != nil {
		v["before"] = *a.before
	}
	return v
}

func fetchPage(ctx context.Context, s *Server, f filter, a pageArgs) (*connJSON, error) {
	var data struct {
		Product struct {
			Comments connJSON `json:"comments"`
		} `json:"product"`
	}
	if err := s.Query(ctx, walkQuery, walkVars(f, a), &data); err != nil {
		return nil, fmt.Errorf("%s %s: %w", f, a, err)
	}
	return &data.Product.Comments, nil
}

// checkPage compares a page with the expected comments, totalCount, and
// the flags (nil: not checked).
func checkPage(conn *connJSON, want []*rec, total int, hasNext, hasPrev *bool) error {
	var diffs []string
	if conn.TotalCount != total {
		diffs = append(diffs, fmt.Sprintf("totalCount %d, want %d", conn.TotalCount, total))
	}
	gotIDs := make([]string, len(conn.Edges))
	for i, e := range conn.Edges {
		gotIDs[i] = e.Node.ID
	}
	wantIDs := make([]string, len(want))
	for i, c := range want {
		wantIDs[i] = c.ID
	}
	if !slices.Equal(gotIDs, wantIDs) {
		diffs = append(diffs, fmt.Sprintf("ids %v, want %v", gotIDs, wantIDs))
	} else {
		for i, e := range conn.Edges {
			if err := checkComment(e.Node, want[i]); err != nil {
				diffs = append(diffs, err.Error())
			}
			if e.Cursor == "" {
				diffs = append(diffs, fmt.Sprintf("edge %d has an empty cursor", i))
			}
		}
	}
	nodeIDs := make([]string, len(conn.Nodes))
	for i, n := range conn.Nodes {
		nodeIDs[i] = n.ID
	}
	if !slices.Equal(nodeIDs, gotIDs) {
		diffs = append(diffs, fmt.Sprintf("nodes %v differ from edges' nodes %v", nodeIDs, gotIDs))
	}
	pi := conn.PageInfo
	if hasNext != nil && pi.HasNextPage != *hasNext {
		diffs = append(diffs, fmt.Sprintf("hasNextPage %v, want %v", pi.HasNextPage, *hasNext))
	}
	if hasPrev != nil && pi.HasPreviousPage != *hasPrev {
		diffs = append(diffs, fmt.Sprintf("hasPreviousPage %v, want %v", pi.HasPreviousPage, *hasPrev))
	}
	if len(conn.Edges) == 0 {
		if pi.StartCursor != nil || pi.EndCursor != nil {
			diffs = append(diffs, fmt.Sprintf("empty page with startCursor %v, endCursor %v, want null", deref(pi.StartCursor), deref(pi.EndCursor)))
		}
	} else {
		if first := conn.Edges[0].Cursor; pi.StartCursor == nil || *pi.StartCursor != first {
			diffs = append(diffs, fmt.Sprintf("startCursor %s, want the first edge's %q", deref(pi.StartCursor), first))
		}
		if last := conn.Edges[len(conn.Edges)-1].Cursor; pi.EndCursor == nil || *pi.EndCursor != last {
			diffs = append(diffs, fmt.Sprintf("endCursor %s, want the last edge's %q", deref(pi.EndCursor), last))
		}
	}
	if diffs != nil {
		return errors.New(strings.Join(diffs, "; "))
	}
	return nil
}

func deref(p *string) string {
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}

func boolp(b bool) *bool { return &b }

// walk reads every page of f with page size n, forward (first/after) or
// backward (last/before), comparing each page with want; it returns the
// cursor of each comment, in display order.
func walk(ctx context.Context, s *Server, f filter, want []*rec, n int, backward bool) ([]string, error) {
	total := len(want)
	cursors := make([]string, total)
	var cursor *string
	for page := 0; ; page++ {
		if page > total/max(n, 1)+1 {
			return nil, fmt.Errorf("%s size %d backward=%v: more than %d pages", f, n, backward, page)
		}
		var a pageArgs
		var lo, hi int
		var hasNext, hasPrev bool
		if backward {
			a = pageArgs{last: intp(n), before: cursor}
			hi = total - page*n
			lo = max(0, hi-n)
			hasPrev = lo > 0
		} else {
			a = pageArgs{first: intp(n), after: cursor}
			lo = page * n
			hi = min(lo+n, total)
			hasNext = hi < total
		}
		conn, err := fetchPage(ctx, s, f, a)
		if err != nil {
			return nil, err
		}
		if err := checkPage(conn, want[lo:hi], total, &hasNext, &hasPrev); err != nil {
			return nil, fmt.Errorf("%s %s (page %d of the walk): %v", f, a, page, err)
		}
		for i, e := range conn.Edges {
			cursors[lo+i] = e.Cursor
		}
		if (backward && lo == 0) || (!backward && hi == total) {
			return cursors, nil
		}
		if backward {
			cursor = conn.PageInfo.StartCursor
		} else {
			cursor = conn.PageInfo.EndCursor
		}
	}
}

// runParallel runs jobs on e2eWorkers goroutines and returns their errors.
func runParallel(jobs []func() error) []error {
	var (
		mu   sync.Mutex
		errs []error
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range e2eWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				if err := jobs[i](); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return errs
}

func reportErrors(tb testing.TB, what string, errs []error) {
	tb.Helper()
	for i, err := range errs {
		if i == 25 {
			tb.Errorf("%s: and %d more failures", what, len(errs)-i)
			break
		}
		tb.Errorf("%s: %v", what, err)
	}
}

// matrixFilters returns the filters of the pagination matrix for pids:
// every language (all, each, one without comments, plus spellings) ×
// every ratings shape, plus a zero-count rating of each (product, language).
func matrixFilters(recs []*rec, pids []string, langs []string) []filter {
	sels := []ratingSel{
		ratingsAll, ratingsOf(), ratingsOf(5), ratingsOf(1, 2), ratingsOf(1, 3, 5), ratingsOf(2, 3, 4, 5),
		ratingsOf(1, 2, 3, 4), ratingsOf(4, 5), ratingsOf(1, 2, 3, 4, 5), ratingsOf(5, 5, 1),
	}
	var out []filter
	for _, pid := range pids {
		langPtrs := []*string{nil}
		for _, l := range langs {
			langPtrs = append(langPtrs, strp(l))
		}
		for _, lp := range langPtrs {
			for _, sel := range sels {
				out = append(out, filter{pid, lp, sel})
			}
			// A rating with no comments under this filter, alone and with
			// the most common one.
			lang := ""
			if lp != nil {
				lang = canonLang(*lp)
			}
			counts, _ := oracleCounts(recs, pid, lang)
			zero, top := 0, 0
			for r := 1; r <= 5; r++ {
				if counts[r] == 0 && zero == 0 {
					zero = r
				}
				if counts[r] > 0 && (top == 0 || counts[r] > counts[top]) {
					top = r
				}
			}
			if zero != 0 {
				out = append(out, filter{pid, lp, ratingsOf(zero)})
				if top != 0 {
					out = append(out, filter{pid, lp, ratingsOf(top, zero)})
				}
			}
		}
	}
	return out
}

// checkMatrix walks every filter with every page size, both ways, in
// parallel over filters, and compares with the oracle over recs.
func checkMatrix(t *testing.T, s *Server, recs []*rec, filters []filter) {
	t.Helper()
	start, reqs := time.Now(), s.requests.Load()
	var jobs []func() error
	for _, f := range filters {
		want := oracleList(recs, f)
		jobs = append(jobs, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			sizes := []int{7, 20, 100}
			if len(want) <= 40 {
				sizes = append([]int{1}, sizes...)
			}
			for _, n := range sizes {
				for _, backward := range []bool{false, true} {
					if _, err := walk(ctx, s, f, want, n, backward); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	reportErrors(t, "pagination", runParallel(jobs))
	t.Logf("%d filters × page sizes × 2 directions: %d requests in %s", len(filters), s.requests.Load()-reqs, time.Since(start).Round(time.Millisecond))
}

type statsJSON struct {
	Language      *string  `json:"language"`
	Total         int      `json:"total"`
	AverageRating *float64 `json:"averageRating"`
	Ratings       []struct {
		Rating int `json:"rating"`
		Count  int `json:"count"`
	} `json:"ratings"`
}

const statsFields = `language total averageRating ratings { rating count }`

// checkStats compares stats with the recount of (pid, lang as sent).
func checkStats(recs []*rec, got statsJSON, pid string, lang *string) error {
	canon := ""
	if lang != nil {
		canon = canonLang(*lang)
	}
	counts, total := oracleCounts(recs, pid, canon)
	var diffs []string
	if (lang == nil) != (got.Language == nil) || (lang != nil && *got.Language != canon) {
		diffs = append(diffs, fmt.Sprintf("language %s, want %q", deref(got.Language), canon))
	}
	if got.Total != total {
		diffs = append(diffs, fmt.Sprintf("total %d, want %d", got.Total, total))
	}
	if total == 0 {
		if got.AverageRating != nil {
			diffs = append(diffs, fmt.Sprintf("averageRating %v, want null", *got.AverageRating))
		}
	} else {
		sum := 0
		for r := 1; r <= 5; r++ {
			sum += r * counts[r]
		}
		want := float64(sum) / float64(total)
		if got.AverageRating == nil || math.Abs(*got.AverageRating-want) > 1e-9 {
			diffs = append(diffs, fmt.Sprintf("averageRating %v, want %v", got.AverageRating, want))
		}
	}
	var gotCounts []string
	ok := len(got.Ratings) == 5
	for i, rc := range got.Ratings {
		gotCounts = append(gotCounts, fmt.Sprintf("%d:%d", rc.Rating, rc.Count))
		if i < 5 && (rc.Rating != i+1 || rc.Count != counts[i+1]) {
			ok = false
		}
	}
	if !ok {
		diffs = append(diffs, fmt.Sprintf("ratings %v, want 1:%d 2:%d 3:%d 4:%d 5:%d", gotCounts, counts[1], counts[2], counts[3], counts[4], counts[5]))
	}
	if diffs != nil {
		l := "null"
		if lang != nil {
			l = strconv.Quote(*lang)
		}
		return fmt.Errorf("product %q stats(language: %s): %s", pid, l, strings.Join(diffs, "; "))
	}
	return nil
}

// checkLanguages compares Product.languages with the recount: the same
// languages and totals, in tag order.
func checkLanguages(recs []*rec, got []langTotal, pid string) error {
	want := oracleLanguages(recs, pid)
	gotM := map[string]int{}
	sorted := true
	for i, lt := range got {
		if _, dup := gotM[lt.Language]; dup {
			return fmt.Errorf("product %q languages %v: %q twice", pid, got, lt.Language)
		}
		gotM[lt.Language] = lt.Total
		if i > 0 && got[i-1].Language >= lt.Language {
			sorted = false
		}
	}
	if !reflect.DeepEqual(gotM, want) || !sorted {
		return fmt.Errorf("product %q languages %v, want %v, in tag order", pid, got, want)
	}
	return nil
}

func checkTop(recs []*rec, got []rankJSON, lang *string, n int) error {
	canon := ""
	if lang != nil {
		canon = canonLang(*lang)
	}
	want := oracleTop(recs, canon, n)
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Rank == i+1 && got[i].Product.ID == want[i].pid && got[i].FiveStarCount == want[i].five
	}
	if !ok {
		var g []string
		for _, r := range got {
			g = append(g, fmt.Sprintf("%d:%s:%d", r.Rank, r.Product.ID, r.FiveStarCount))
		}
		var w []string
		for i, r := range want {
			w = append(w, fmt.Sprintf("%d:%s:%d", i+1, r.pid, r.five))
		}
		return fmt.Errorf("topProducts(first: %d, language: %s): got %v, want %v", n, deref(lang), g, w)
	}
	return nil
}

// e2eProductIDs are every product the suite knows, the empty one included.
func e2eProductIDs() []string {
	var ids []string
	for _, p := range e2eProducts {
		ids = append(ids, p.id)
	}
	return append(ids, e2eEmptyProduct)
}

// MustCheckSnapshot reads, in one request, the stats (all languages and
// each), languages and leaderboards (with and without language, several
// sizes) of every product, compares them with the recount of recs, and
// returns the decoded answer for later comparison.
func MustCheckSnapshot(tb testing.TB, s *Server, recs []*rec) any {
	tb.Helper()
	statLangs := []string{"en", "de", "pt-BR", "fr", e2eNoLang, e2eNewLang, "PT-br"}
	topLangs := []*string{nil, strp("en"), strp("de"), strp("pt-BR"), strp("fr"), strp(e2eNoLang), strp(e2eNewLang), strp("EN")}
	firsts := []int{-1, 0, 1, 3, 10, 100} // -1: omitted (default 10)
	pids := e2eProductIDs()

	var q strings.Builder
	q.WriteString("query Snapshot {\n")
	for i, pid := range pids {
		fmt.Fprintf(&q, "  p%d: product(id: %q) { id all: stats { ...S }", i, pid)
		for j, l := range statLangs {
			fmt.Fprintf(&q, " l%d: stats(language: %q) { ...S }", j, l)
		}
		q.WriteString(" languages { language total } }\n")
	}
	for i, l := range topLangs {
		for j, n := range firsts {
			var args []string
			if n >= 0 {
				args = append(args, fmt.Sprintf("first: %d", n))
			}
			if l != nil {
				args = append(args, fmt.Sprintf("language: %q", *l))
			}
			a := ""
			if args != nil {
				a = "(" + strings.Join(args, ", ") + ")"
			}
			fmt.Fprintf(&q, "  t%d_%d: topProducts%s { rank fiveStarCount product { id } }\n", i, j, a)
		}
	}
	q.WriteString("}\nfragment S on CommentStats { " + statsFields + " }\n")

	var raw map[string]json.RawMessage
	MustQuery(tb, s, q.String(), nil, &raw)
	var problems []string
	for i, pid := range pids {
		var p map[string]json.RawMessage
		if err := json.Unmarshal(raw[fmt.Sprintf("p%d", i)], &p); err != nil {
			tb.Fatalf("product %q: %v", pid, err)
		}
		var id string
		_ = json.Unmarshal(p["id"], &id)
		if id != pid {
			problems = append(problems, fmt.Sprintf("product(id: %q).id = %q", pid, id))
		}
		for j := -1; j < len(statLangs); j++ {
			key, lang := "all", (*string)(nil)
			if j >= 0 {
				key, lang = fmt.Sprintf("l%d", j), &statLangs[j]
			}
			var st statsJSON
			if err := json.Unmarshal(p[key], &st); err != nil {
				tb.Fatalf("product %q %s: %v", pid, key, err)
			}
			if err := checkStats(recs, st, pid, lang); err != nil {
				problems = append(problems, err.Error())
			}
		}
		var langs []langTotal
		if err := json.Unmarshal(p["languages"], &langs); err != nil || langs == nil {
			tb.Fatalf("product %q languages: %v (%s)", pid, err, p["languages"])
		}
		if err := checkLanguages(recs, langs, pid); err != nil {
			problems = append(problems, err.Error())
		}
	}
	for i, l := range topLangs {
		for j, n := range firsts {
			var ranks []rankJSON
			if err := json.Unmarshal(raw[fmt.Sprintf("t%d_%d", i, j)], &ranks); err != nil {
				tb.Fatalf("topProducts: %v", err)
			}
			if n < 0 {
				n = 10
			}
			if err := checkTop(recs, ranks, l, n); err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	for i, p := range problems {
		if i == 30 {
			tb.Errorf("and %d more", len(problems)-i)
			break
		}
		tb.Error(p)
	}
	var decoded any
	b, _ := json.Marshal(raw)
	_ = json.Unmarshal(b, &decoded)
	return decoded
}

const commentQuery = `query($id: ID!) { comment(id: $id) { ` + commentFields + ` } }`

// MustComment returns comment(id), nil when the server says null.
func MustComment(tb testing.TB, s *Server, id string) *commentJSON {
	tb.Helper()
	var data struct {
		Comment *commentJSON `json:"comment"`
	}
	MustQuery(tb, s, commentQuery, map[string]any{"id": id}, &data)
	return data.Comment
}

// ---------------------------------------------------------------------------
// The suite.
// ---------------------------------------------------------------------------

// TestAPIAgreesWithARecount runs the suite on bolt and, with
// DYNAMODB_ENDPOINT, on DynamoDB: every page, count, stats and leaderboard
// answer, every mutation and every refusal agrees with a recount of the
// generated records, before and after rebuild-stats.
func TestAPIAgreesWithARecount(t *testing.T) {
	data := generateE2EData()
	file := writeJSONL(t, data)

	t.Run("bolt", func(t *testing.T) {
		spec := "bolt:" + filepath.Join(t.TempDir(), "e2e.db")
		runE2ESuite(t, data, file, spec, true)
	})
	t.Run("dynamodb", func(t *testing.T) {
		dynamo := dynamotest.MustClient(t) // skips without DYNAMODB_ENDPOINT
		table := fmt.Sprintf("e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
		spec := "dynamodb:" + table
		// No stream: this suite runs no subscriptions (-no-subscriptions,
		// runE2ESuite), and DynamoDB Local writes ~20 times more slowly to a
		// table with one; web/live tests subscriptions over the stream.
		out := MustRun(t, "create-table", "-stream=false", "-store", spec)
		if want := fmt.Sprintf("table %s is ACTIVE with its %d indexes\n", table, len(storetable.AllIndexes)); out != want {
			t.Errorf("create-table printed %q, want %q", out, want)
		}
		t.Cleanup(func() { deleteTable(t, dynamo, table) })
		// create-table is idempotent.
		MustRun(t, "create-table", "-stream=false", "-store", spec)
		runE2ESuite(t, data, file, spec, false)
	})
}

// deleteTable removes the test's table (best effort: DynamoDB Local in
// memory forgets it anyway, a long-lived server would keep it).
func deleteTable(tb testing.TB, client *dynamodb.Client, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		tb.Logf("deleting table %s: %v", table, err)
	}
}

var (
	importSummaryRE = regexp.MustCompile(`(?m)^imported (\d+) comments \((\d+) products, (\d+) languages\) in `)
	recountRE       = regexp.MustCompile(`(?m)^stats recounted: (\d+) comments in the store, (\d+) products$`)
	rebuildRE       = regexp.MustCompile(`^recounted (\d+) comments of (\d+) products, wrote (\d+) stats items in \S+\n$`)
)

// serveArgs are the suite's serve flags for store spec: on DynamoDB, no
// subscriptions (its table has no stream; see TestE2E).
func serveArgs(spec string) []string {
	if strings.HasPrefix(spec, "dynamodb:") {
		return []string{"-store", spec, "-no-subscriptions"}
	}
	return []string{"-store", spec}
}

// runE2ESuite imports data (from file) into the store spec and checks the
// server on it. stopForRebuild: rebuild-stats needs the store to itself.
func runE2ESuite(t *testing.T, data []*rec, file, spec string, stopForRebuild bool) {
	suiteStart := time.Now()
	out := MustRun(t, "import", "-store", spec, file)
	m := importSummaryRE.FindStringSubmatch(out)
	if m == nil || m[1] != strconv.Itoa(len(data)) || m[2] != strconv.Itoa(len(e2eProducts)) || m[3] != strconv.Itoa(len(e2eLangs)) {
		t.Errorf("import printed %q; want `imported %d comments (%d products, %d languages) in …`", out, len(data), len(e2eProducts), len(e2eLangs))
	}
	if m := recountRE.FindStringSubmatch(out); m == nil || m[1] != strconv.Itoa(len(data)) || m[2] != strconv.Itoa(len(e2eProducts)) {
		t.Errorf("import printed %q; want `stats recounted: %d comments in the store, %d products`", out, len(data), len(e2eProducts))
	}

	srv := MustStartServer(t, serveArgs(spec)...)
	model := newModel(data)

	t.Run("endpoints", func(t *testing.T) { testEndpoints(t, srv) })
	t.Run("pagination matrix", func(t *testing.T) {
		pids := e2eProductIDs()
		filters := matrixFilters(data, pids, append(slices.Clone(e2eLangs), e2eNoLang))
		// Language tags as a client may spell them.
		for _, l := range []string{"EN", "PT-br"} {
			for _, sel := range []ratingSel{ratingsAll, ratingsOf(5), ratingsOf(1, 2)} {
				filters = append(filters, filter{e2eBig, strp(l), sel})
			}
		}
		checkMatrix(t, srv, data, filters)
	})
	t.Run("page size 0 and defaults", func(t *testing.T) { testPageEdges(t, srv, data) })
	t.Run("cursor across filters", func(t *testing.T) { testCursorAcrossFilters(t, srv, data) })
	t.Run("stats and leaderboard", func(t *testing.T) {
		MustCheckSnapshot(t, srv, data)
		testEmptyProduct(t, srv)
		testCommentByID(t, srv, data)
	})
	t.Run("GET", func(t *testing.T) { testGET(t, srv, data) })
	if !t.Run("mutations", func(t *testing.T) { testMutations(t, srv, model) }) {
		return
	}
	t.Run("bad input", func(t *testing.T) { testBadInput(t, srv, model) })
	if !t.Run("concurrent mutations", func(t *testing.T) { testConcurrentMutations(t, srv, model) }) {
		return
	}
	t.Run("rebuild-stats", func(t *testing.T) {
		recs := model.all()
		before := MustCheckSnapshot(t, srv, recs)
		if stopForRebuild {
			srv.Stop(t) // bolt: one process at a time
		}
		out := MustRun(t, "rebuild-stats", "-store", spec)
		m := rebuildRE.FindStringSubmatch(out)
		products := map[string]bool{}
		for _, c := range recs {
			products[c.Product] = true
		}
		if m == nil || m[1] != strconv.Itoa(len(recs)) || m[2] != strconv.Itoa(len(products)) {
			t.Errorf("rebuild-stats printed %q; want `recounted %d comments of %d products, wrote N stats items in …`", out, len(recs), len(products))
		}
		if stopForRebuild {
			srv = MustStartServer(t, serveArgs(spec)...)
		}
		after := MustCheckSnapshot(t, srv, recs)
		if !reflect.DeepEqual(before, after) {
			t.Errorf("rebuild-stats changed the stats or leaderboard (they had drifted):\nbefore: %s\nafter:  %s", mustJSON(before), mustJSON(after))
		}
		// The comments themselves, once more after the restart.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, pid := range []string{"Mug-07", "grinder_2", "toaster"} {
			f := filter{pid, nil, ratingsAll}
			if _, err := walk(ctx, srv, f, oracleList(recs, f), 100, false); err != nil {
				t.Error(err)
			}
		}
	})
	t.Logf("suite on %s: %s, %d requests to the last server", spec, time.Since(suiteStart).Round(time.Millisecond), srv.requests.Load())
}

func testEndpoints(t *testing.T, s *Server) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	for _, path := range []string{"/healthz", "/readyz", "/"} {
		status, body, err := s.HTTP(ctx, http.MethodGet, path, nil, nil)
		if err != nil || status != http.StatusOK {
			t.Errorf("GET %s: HTTP %d, %v: %.200s", path, status, err, body)
		}
	}
	// Production: /metrics only on -metrics-addr (metrics_listener_test.go).
	if status, _, err := s.HTTP(ctx, http.MethodGet, "/metrics", nil, nil); err != nil || status != http.StatusNotFound {
		t.Errorf("GET /metrics on the API listener: HTTP %d, %v; want 404", status, err)
	}
}

// testPageEdges checks page size 0, the default page size and the oldest
// page (last without before).
func testPageEdges(t *testing.T, s *Server, data []*rec) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, pid := range e2eProductIDs() {
		f := filter{pid, nil, ratingsAll}
		want := oracleList(data, f)
		n := len(want)
		check := func(a pageArgs, page []*rec, hasNext, hasPrev bool) {
			conn, err := fetchPage(ctx, s, f, a)
			if err != nil {
				t.Error(err)
				return
			}
			if err := checkPage(conn, page, n, &hasNext, &hasPrev); err != nil {
				t.Errorf("%s %s: %v", f, a, err)
			}
		}
		check(pageArgs{first: intp(0)}, nil, n > 0, false)
		check(pageArgs{last: intp(0)}, nil, false, n > 0)
		check(pageArgs{}, want[:min(20, n)], n > 20, false)              // default: first 20
		check(pageArgs{last: intp(3)}, want[max(0, n-3):], false, n > 3) // the oldest three
		check(pageArgs{first: intp(100)}, want[:min(100, n)], n > 100, false)
	}
}

// testCursorAcrossFilters takes cursors from the unfiltered list of the big
// product and resumes filtered lists after (and before, and between) them.
func testCursorAcrossFilters(t *testing.T, s *Server, data []*rec) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := oracleList(data, filter{e2eBig, nil, ratingsAll})
	cursors, err := walk(ctx, s, filter{e2eBig, nil, ratingsAll}, all, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	n := len(all)
	positions := []int{0, 1, 6, 7, 19, 20, 99, 100, n / 2, n - 2, n - 1}
	for i, c := range all {
		if slices.Contains(e2eTieIDs, c.ID) {
			positions = append(positions, i, max(0, i-1), min(n-1, i+1))
		}
	}
	slices.Sort(positions)
	positions = slices.Compact(positions)
	filters := []filter{
		{e2eBig, strp("de"), ratingsOf(1, 5)},
		{e2eBig, nil, ratingsOf(5)},
		{e2eBig, strp("fr"), ratingsOf(2)}, // no such comment
		{e2eBig, strp("en"), ratingsAll},
		{e2eBig, strp("pt-BR"), ratingsOf(1, 2, 3, 4)},
		{e2eBig, nil, ratingsOf(2, 3)},
		{e2eBig, strp("fr"), ratingsOf(1, 3, 4, 5)},
	}
	const k = 10
	for _, f := range filters {
		matches := oracleList(data, f)
		total := len(matches)
		for _, i := range positions {
			pivot := all[i]
			var after, before []*rec // matches after (older than) / before (newer than) the pivot
			for _, c := range matches {
				if displayBefore(pivot, c) {
					after = append(after, c)
				} else if displayBefore(c, pivot) {
					before = append(before, c)
				}
			}
			a := pageArgs{first: intp(k), after: &cursors[i]}
			if conn, err := fetchPage(ctx, s, f, a); err != nil {
				t.Error(err)
			} else if err := checkPage(conn, after[:min(k, len(after))], total, boolp(len(after) > k), boolp(false)); err != nil {
				t.Errorf("%s %s (cursor of unfiltered position %d, comment %s): %v", f, a, i, pivot.ID, err)
			}
			b := pageArgs{last: intp(k), before: &cursors[i]}
			if conn, err := fetchPage(ctx, s, f, b); err != nil {
				t.Error(err)
			} else if err := checkPage(conn, before[max(0, len(before)-k):], total, boolp(false), boolp(len(before) > k)); err != nil {
				t.Errorf("%s %s (cursor of unfiltered position %d, comment %s): %v", f, b, i, pivot.ID, err)
			}
		}
		// Between two cursors: after the newer, before the older.
		for _, pair := range [][2]int{{0, n - 1}, {5, 40}, {e2eTieRunStart - 3, e2eTieRunStart + 40}, {100, 101}, {300, 420}} {
			i, j := pair[0], pair[1]
			var between []*rec
			for _, c := range matches {
				if displayBefore(all[i], c) && displayBefore(c, all[j]) {
					between = append(between, c)
				}
			}
			for _, a := range []pageArgs{
				{first: intp(100), after: &cursors[i], before: &cursors[j]},
				{last: intp(100), after: &cursors[i], before: &cursors[j]},
			} {
				var want []*rec
				if a.first != nil {
					want = between[:min(100, len(between))]
				} else {
					want = between[max(0, len(between)-100):]
				}
				if conn, err := fetchPage(ctx, s, f, a); err != nil {
					t.Error(err)
				} else if err := checkPage(conn, want, total, nil, nil); err != nil {
					t.Errorf("%s %s (between unfiltered positions %d and %d): %v", f, a, i, j, err)
				}
			}
		}
	}
}

// testEmptyProduct checks a product id without comments: zero stats, an
// empty connection, no languages.
func testEmptyProduct(t *testing.T, s *Server) {
	var data struct {
		Product struct {
			ID        string      `json:"id"`
			Stats     statsJSON   `json:"stats"`
			StatsDe   statsJSON   `json:"statsDe"`
			Languages []langTotal `json:"languages"`
			Comments  connJSON    `json:"comments"`
		} `json:"product"`
	}
	MustQuery(t, s, `query($pid: ID!) { product(id: $pid) {
		id stats { `+statsFields+` } statsDe: stats(language: "de") { `+statsFields+` } languages { language total }
		comments { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } nodes { id } }
	} }`, map[string]any{"pid": e2eEmptyProduct}, &data)
	p := data.Product
	if p.ID != e2eEmptyProduct {
		t.Errorf("product(id: %q).id = %q", e2eEmptyProduct, p.ID)
	}
	if err := checkStats(nil, p.Stats, e2eEmptyProduct, nil); err != nil {
		t.Error(err)
	}
	if err := checkStats(nil, p.StatsDe, e2eEmptyProduct, strp("de")); err != nil {
		t.Error(err)
	}
	if p.Languages == nil || len(p.Languages) != 0 {
		t.Errorf("product %q languages = %v, want []", e2eEmptyProduct, p.Languages)
	}
	if err := checkPage(&p.Comments, nil, 0, boolp(false), boolp(false)); err != nil {
		t.Errorf("product %q comments: %v", e2eEmptyProduct, err)
	}
}

// testCommentByID checks comment(id) for some existing comments (every
// field) and for missing ids (null, no error).
func testCommentByID(t *testing.T, s *Server, data []*rec) {
	for i, c := range data {
		if i%97 != 0 && !slices.Contains(e2eTieIDs, c.ID) && c.Product != "aa-one" {
			continue
		}
		got := MustComment(t, s, c.ID)
		if got == nil {
			t.Errorf("comment(id: %q) = null, want the comment", c.ID)
		} else if err := checkComment(*got, c); err != nil {
			t.Error(err)
		}
	}
	for _, id := range []string{"no-such-comment", "TIE", "tie--", strings.Repeat("z", 64)} {
		if got := MustComment(t, s, id); got != nil {
			t.Errorf("comment(id: %q) = %+v, want null", id, *got)
		}
	}
}

// testGET checks that queries over GET answer exactly what POST answers.
func testGET(t *testing.T, s *Server, data []*rec) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	f := filter{e2eBig, strp("de"), ratingsOf(1, 5)}
	cases := []struct {
		query string
		vars  map[string]any
	}{
		{walkQuery, walkVars(f, pageArgs{first: intp(7)})},
		{walkQuery, walkVars(filter{"Mug-07", nil, ratingsAll}, pageArgs{last: intp(5)})},
		{`{ topProducts(first: 3) { rank fiveStarCount product { id } } }`, nil},
		{`query($id: ID!) { comment(id: $id) { ` + commentFields + ` } }`, map[string]any{"id": data[0].ID}},
		{`{ product(id: "toaster") { stats(language: "en") { ` + statsFields + ` } languages { language total } } }`, nil},
	}
	for _, c := range cases {
		post, err := s.Do(ctx, http.MethodPost, c.query, c.vars)
		if err != nil {
			t.Fatal(err)
		}
		get, err := s.Do(ctx, http.MethodGet, c.query, c.vars)
		if err != nil {
			t.Fatal(err)
		}
		if get.Status != http.StatusOK || len(get.Errors) > 0 || len(get.Data) == 0 {
			t.Errorf("GET %s: HTTP %d, errors %s", oneLine(c.query), get.Status, get.ErrorSummary())
			continue
		}
		var pv, gv any
		_ = json.Unmarshal(post.Data, &pv)
		_ = json.Unmarshal(get.Data, &gv)
		if !reflect.DeepEqual(pv, gv) {
			t.Errorf("GET and POST differ for %s:\nGET:  %.400s\nPOST: %.400s", oneLine(c.query), get.Data, post.Data)
		}
	}
	// The first GET page, checked against the oracle too.
	var data1 struct {
		Product struct {
			Comments connJSON `json:"comments"`
		} `json:"product"`
	}
	get, err := s.Do(ctx, http.MethodGet, walkQuery, walkVars(f, pageArgs{first: intp(7)}))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(get.Data, &data1); err != nil {
		t.Fatal(err)
	}
	want := oracleList(data, f)
	if err := checkPage(&data1.Product.Comments, want[:7], len(want), boolp(len(want) > 7), boolp(false)); err != nil {
		t.Errorf("GET %s first 7: %v", f, err)
	}
}

const (
	createMutation = `mutation Create($in: CreateCommentInput!) { createComment(input: $in) { comment { ` + commentFields + ` } } }`
	updateMutation = `mutation Update($in: UpdateCommentInput!) { updateComment(input: $in) { comment { ` + commentFields + ` } } }`
	deleteMutation = `mutation Delete($in: DeleteCommentInput!) { deleteComment(input: $in) { deletedCommentId } }`
)

// createComment creates a comment and checks the answer: the given fields
// (language canonicalised), a fresh id, createdAt within [from, now].
func createComment(ctx context.Context, s *Server, in map[string]any, from time.Time) (rec, error) {
	var data struct {
		CreateComment struct {
			Comment commentJSON `json:"comment"`
		} `json:"createComment"`
	}
	if err := s.Query(ctx, createMutation, map[string]any{"in": in}, &data); err != nil {
		return rec{}, fmt.Errorf("createComment(%s): %w", mustJSON(in), err)
	}
	got := data.CreateComment.Comment
	at, err := time.Parse(time.RFC3339Nano, got.CreatedAt)
	if err != nil || at.Before(from.Add(-5*time.Second)) || at.After(time.Now().Add(5*time.Second)) {
		return rec{}, fmt.Errorf("createComment: createdAt %q is not the time of the request (%s): %v", got.CreatedAt, from.UTC().Format(time.RFC3339Nano), err)
	}
	if got.ID == "" {
		return rec{}, errors.New("createComment: empty id")
	}
	want := rec{
		ID: got.ID, Product: in["productId"].(string), Lang: canonLang(in["language"].(string)), Rating: in["rating"].(int),
		Author: in["author"].(string), Title: in["title"].(string), Body: in["body"].(string), CreatedAt: at,
	}
	if err := checkComment(got, &want); err != nil {
		return rec{}, fmt.Errorf("createComment(%.300s) returned %w", mustJSON(in), err)
	}
	return want, nil
}

// updateComment applies in to cur and checks the answer.
func updateComment(ctx context.Context, s *Server, cur rec, in map[string]any) (rec, error) {
	var data struct {
		UpdateComment struct {
			Comment commentJSON `json:"comment"`
		} `json:"updateComment"`
	}
	if err := s.Query(ctx, updateMutation, map[string]any{"in": in}, &data); err != nil {
		return rec{}, fmt.Errorf("updateComment(%s): %w", mustJSON(in), err)
	}
	want := cur
	if v, ok := in["language"].(string); ok {
		want.Lang = canonLang(v)
	}
	if v, ok := in["rating"].(int); ok {
		want.Rating = v
	}
	if v, ok := in["title"].(string); ok {
		want.Title = v
	}
	if v, ok := in["body"].(string); ok {
		want.Body = v
	}
	if err := checkComment(data.UpdateComment.Comment, &want); err != nil {
		return rec{}, fmt.Errorf("updateComment(%.300s) returned %w", mustJSON(in), err)
	}
	return want, nil
}

func deleteComment(ctx context.Context, s *Server, id string) error {
	var data struct {
		DeleteComment struct {
			DeletedCommentID string `json:"deletedCommentId"`
		} `json:"deleteComment"`
	}
	if err := s.Query(ctx, deleteMutation, map[string]any{"in": map[string]any{"id": id}}, &data); err != nil {
		return fmt.Errorf("deleteComment(%q): %w", id, err)
	}
	if data.DeleteComment.DeletedCommentID != id {
		return fmt.Errorf("deleteComment(%q) returned deletedCommentId %q", id, data.DeleteComment.DeletedCommentID)
	}
	return nil
}

// testMutations runs create, update and delete one at a time and checks
// the comment, the first page, stats and leaderboard after each.
func testMutations(t *testing.T, s *Server, model *e2eModel) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	firstPage := func(pid string) {
		t.Helper()
		f := filter{pid, nil, ratingsAll}
		want := oracleList(model.all(), f)
		conn, err := fetchPage(ctx, s, f, pageArgs{first: intp(3)})
		if err != nil {
			t.Fatal(err)
		}
		if err := checkPage(conn, want[:min(3, len(want))], len(want), boolp(len(want) > 3), boolp(false)); err != nil {
			t.Errorf("%s first 3: %v", f, err)
		}
	}

	// Create: "toaster" gets a sixth 5-star comment and overtakes "toaster-2".
	c, err := createComment(ctx, s, map[string]any{
		"productId": "toaster", "language": "PT-br", "rating": 5,
		"author": "E2E ✓", "title": "Brand new", "body": "line 1\nline 2 \"quoted\" \\ <b>",
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	model.put(c)
	if got := MustComment(t, s, c.ID); got == nil {
		t.Errorf("comment(id: %q) = null after createComment", c.ID)
	} else if err := checkComment(*got, &c); err != nil {
		t.Errorf("comment(id) after createComment: %v", err)
	}
	firstPage("toaster")
	MustCheckSnapshot(t, s, model.all())

	// Update rating (5 → 2, leaving the leaderboard) and language.
	c, err = updateComment(ctx, s, c, map[string]any{"id": c.ID, "rating": 2, "language": "de", "title": "Changed my mind"})
	if err != nil {
		t.Fatal(err)
	}
	model.put(c)
	firstPage("toaster")
	MustCheckSnapshot(t, s, model.all())

	// Update the body only; nulls keep their values.
	c, err = updateComment(ctx, s, c, map[string]any{"id": c.ID, "body": "Only the body changed.", "rating": nil, "language": nil})
	if err != nil {
		t.Fatal(err)
	}
	model.put(c)
	if got := MustComment(t, s, c.ID); got == nil || checkComment(*got, &c) != nil {
		t.Errorf("comment(id: %q) after updates = %+v, want %+v", c.ID, got, c)
	}

	// Delete.
	if err := deleteComment(ctx, s, c.ID); err != nil {
		t.Fatal(err)
	}
	model.remove(c.ID)
	if got := MustComment(t, s, c.ID); got != nil {
		t.Errorf("comment(id: %q) = %+v after deleteComment, want null", c.ID, *got)
	}
	firstPage("toaster")
	MustCheckSnapshot(t, s, model.all())

	// Gone means NOT_FOUND.
	for _, id := range []string{c.ID, "no-such-comment-e2e"} {
		MustErrorCode(t, s, "updateComment of a missing comment", updateMutation, map[string]any{"in": map[string]any{"id": id, "rating": 3}}, "NOT_FOUND")
		MustErrorCode(t, s, "deleteComment of a missing comment", deleteMutation, map[string]any{"in": map[string]any{"id": id}}, "NOT_FOUND")
	}

	// The longest texts allowed, counted in characters, not bytes.
	long, err := createComment(ctx, s, map[string]any{
		"productId": "toaster", "language": "fr", "rating": 1,
		"author": strings.Repeat("é", 100), "title": strings.Repeat("ß", 200), "body": strings.Repeat("€", 10_000),
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	model.put(long)
	if got := MustComment(t, s, long.ID); got == nil || checkComment(*got, &long) != nil {
		t.Errorf("comment(id: %q) with the longest texts does not round-trip", long.ID)
	}
	firstPage("toaster")

	// A mutation over GET is refused, and not run.
	q := url.Values{"query": {fmt.Sprintf(`mutation { deleteComment(input: {id: %q}) { deletedCommentId } }`, long.ID)}}
	status, body, err := s.HTTP(ctx, http.MethodGet, "/graphql?"+q.Encode(), nil, nil)
	if err != nil {
		t.Error(err)
	} else if status < 400 || status > 499 {
		t.Errorf("GET with a mutation: HTTP %d, want a 4xx: %.300s", status, body)
	}
	if got := MustComment(t, s, long.ID); got == nil {
		t.Errorf("a GET mutation deleted comment %s", long.ID)
		model.remove(long.ID)
	}
	MustCheckSnapshot(t, s, model.all())
}

// testBadInput checks that every invalid argument is a BAD_USER_INPUT
// error, that malformed requests are 4xx (never 5xx), and that nothing
// changed.
func testBadInput(t *testing.T, s *Server, model *e2eModel) {
	page := func(pid string, lang any, ratings any, extra map[string]any) map[string]any {
		v := map[string]any{"pid": pid, "lang": lang, "ratings": ratings}
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	goodCursor := base64.RawURLEncoding.EncodeToString(append([]byte{1}, "2024-01-01T00:00:00.000000000Z#abc"...))
	type tc struct {
		name  string
		query string
		vars  map[string]any
	}
	badPages := []tc{
		{"rating 0", walkQuery, page(e2eBig, nil, []int{0}, nil)},
		{"rating 6", walkQuery, page(e2eBig, nil, []int{6}, nil)},
		{"ratings [5, 0]", walkQuery, page(e2eBig, "en", []int{5, 0}, nil)},
		{"ratings [-1]", walkQuery, page("zz-empty", nil, []int{-1}, nil)},
		{"first -1", walkQuery, page(e2eBig, nil, nil, map[string]any{"first": -1})},
		{"first 101", walkQuery, page(e2eBig, nil, nil, map[string]any{"first": 101})},
		{"last -1", walkQuery, page(e2eBig, nil, nil, map[string]any{"last": -1})},
		{"last 101", walkQuery, page(e2eBig, nil, nil, map[string]any{"last": 101})},
		{"first with last", walkQuery, page(e2eBig, nil, nil, map[string]any{"first": 5, "last": 5})},
		{"first 0 with last 0", walkQuery, page(e2eBig, nil, nil, map[string]any{"first": 0, "last": 0})},
		{"empty after", walkQuery, page(e2eBig, nil, nil, map[string]any{"first": 5, "after": ""})},
		{"empty before", walkQuery, page(e2eBig, nil, nil, map[string]any{"last": 5, "before": ""})},
		{"garbage after", walkQuery, page(e2eBig, nil, nil, map[string]any{"after": "garbage!!"})},
		{"garbage before", walkQuery, page(e2eBig, "de", []int{1, 2}, map[string]any{"before": "not a cursor"})},
		{"too short cursor", walkQuery, page(e2eBig, nil, nil, map[string]any{"after": "AQ"})},
		{"cursor of another version", walkQuery, page(e2eBig, nil, nil, map[string]any{"after": base64.RawURLEncoding.EncodeToString(append([]byte{2}, "2024-01-01T00:00:00.000000000Z#abc"...))})},
		{"cursor without a sort key", walkQuery, page(e2eBig, nil, nil, map[string]any{"after": base64.RawURLEncoding.EncodeToString([]byte("\x01not a sort key"))})},
		{"cursor with a bad id", walkQuery, page(e2eBig, nil, nil, map[string]any{"after": base64.RawURLEncoding.EncodeToString([]byte("\x012024-01-01T00:00:00.000000000Z#a/b"))})},
		{"huge cursor", walkQuery, page(e2eBig, nil, nil, map[string]any{"after": strings.Repeat(goodCursor, 40)})},
		{"language \"\"", walkQuery, page(e2eBig, "", nil, nil)},
		{"language en/5", walkQuery, page(e2eBig, "en/5", nil, nil)},
		{"language 'not a tag!'", walkQuery, page(e2eBig, "not a tag!", []int{5}, nil)},
		{"product id a/b", walkQuery, page("a/b", nil, nil, nil)},
		{"product id of 65 characters", walkQuery, page(strings.Repeat("p", 65), nil, nil, nil)},
		{"product id \"\"", walkQuery, page("", nil, nil, nil)},
		{"product id with a space", walkQuery, page("kettle XL", nil, nil, nil)},
		{"stats language \"\"", `{ product(id: "kettle-XL") { stats(language: "") { total } } }`, nil},
		{"stats language en/5", `{ product(id: "kettle-XL") { stats(language: "en/5") { total } } }`, nil},
		{"topProducts first -1", `{ topProducts(first: -1) { rank } }`, nil},
		{"topProducts first 101", `{ topProducts(first: 101) { rank } }`, nil},
		{"topProducts language en/5", `{ topProducts(language: "en/5") { rank } }`, nil},
		{"topProducts language \"\"", `{ topProducts(language: "") { rank } }`, nil},
	}
	for _, c := range badPages {
		MustErrorCode(t, s, c.name, c.query, c.vars, "BAD_USER_INPUT")
	}

	valid := map[string]any{"productId": "toaster", "language": "en", "rating": 3, "author": "A", "title": "T", "body": "B"}
	with := func(k string, v any) map[string]any {
		in := map[string]any{}
		for kk, vv := range valid {
			in[kk] = vv
		}
		in[k] = v
		return map[string]any{"in": in}
	}
	badCreates := []tc{
		{"create rating 0", createMutation, with("rating", 0)},
		{"create rating 6", createMutation, with("rating", 6)},
		{"create language \"\"", createMutation, with("language", "")},
		{"create language en/5", createMutation, with("language", "en/5")},
		{"create product id a/b", createMutation, with("productId", "a/b")},
		{"create product id of 65 characters", createMutation, with("productId", strings.Repeat("p", 65))},
		{"create product id \"\"", createMutation, with("productId", "")},
		{"create empty author", createMutation, with("author", "")},
		{"create blank author", createMutation, with("author", " \t ")},
		{"create empty title", createMutation, with("title", "")},
		{"create empty body", createMutation, with("body", "")},
		{"create blank body", createMutation, with("body", "\n\n")},
		{"create author of 101 characters", createMutation, with("author", strings.Repeat("a", 101))},
		{"create author of 101 two-byte characters", createMutation, with("author", strings.Repeat("é", 101))},
		{"create title of 201 characters", createMutation, with("title", strings.Repeat("t", 201))},
		{"create body of 10,001 characters", createMutation, with("body", strings.Repeat("b", 10_001))},
	}
	for _, c := range badCreates {
		MustErrorCode(t, s, c.name, c.query, c.vars, "BAD_USER_INPUT")
	}

	// Updates of an existing comment with bad values change nothing.
	var victim rec
	for _, c := range model.all() {
		if c.Product == "grinder_2" && (victim.ID == "" || c.ID < victim.ID) {
			victim = *c
		}
	}
	upd := func(k string, v any) map[string]any {
		return map[string]any{"in": map[string]any{"id": victim.ID, k: v}}
	}
	badUpdates := []tc{
		{"update rating 0", updateMutation, upd("rating", 0)},
		{"update rating 6", updateMutation, upd("rating", 6)},
		{"update language \"\"", updateMutation, upd("language", "")},
		{"update language en/5", updateMutation, upd("language", "en/5")},
		{"update empty title", updateMutation, upd("title", "")},
		{"update blank title", updateMutation, upd("title", "   ")},
		{"update empty body", updateMutation, upd("body", "")},
		{"update title of 201 characters", updateMutation, upd("title", strings.Repeat("t", 201))},
		{"update body of 10,001 characters", updateMutation, upd("body", strings.Repeat("b", 10_001))},
	}
	for _, c := range badUpdates {
		MustErrorCode(t, s, c.name, c.query, c.vars, "BAD_USER_INPUT")
	}
	if got := MustComment(t, s, victim.ID); got == nil {
		t.Errorf("comment %s vanished after failed updates", victim.ID)
	} else if err := checkComment(*got, &victim); err != nil {
		t.Errorf("failed updates changed the comment: %v", err)
	}

	// Malformed requests: an error, a 4xx or a 200 with errors, never a 5xx.
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	malformed := []struct {
		name, method, path, body string
		header                   map[string]string
	}{
		{"syntax error", "POST", "/graphql", `{"query":"{ product(id: \"x\") { "}`, map[string]string{"Content-Type": "application/json"}},
		{"unknown field", "POST", "/graphql", `{"query":"{ product(id: \"x\") { price } }"}`, map[string]string{"Content-Type": "application/json"}},
		{"wrong variable type", "POST", "/graphql", `{"query":"query($r: [Int!]) { product(id: \"x\") { comments(ratings: $r) { totalCount } } }","variables":{"r":["x"]}}`, map[string]string{"Content-Type": "application/json"}},
		{"Int overflow", "POST", "/graphql", `{"query":"{ product(id: \"x\") { comments(first: 99999999999999999999) { totalCount } } }"}`, map[string]string{"Content-Type": "application/json"}},
		{"not JSON", "POST", "/graphql", `query { x`, map[string]string{"Content-Type": "application/json"}},
		{"empty body", "POST", "/graphql", ``, map[string]string{"Content-Type": "application/json"}},
		{"text body", "POST", "/graphql", `{ topProducts { rank } }`, map[string]string{"Content-Type": "text/plain"}},
		{"GET without a query", "GET", "/graphql", "", nil},
		{"GET with bad variables", "GET", "/graphql?query=" + url.QueryEscape(`query($n: Int) { topProducts(first: $n) { rank } }`) + "&variables=%7Bnope", "", nil},
		{"PUT", "PUT", "/graphql", `{"query":"{ topProducts { rank } }"}`, map[string]string{"Content-Type": "application/json"}},
	}
	for _, c := range malformed {
		var body []byte
		if c.body != "" || c.method == "POST" {
			body = []byte(c.body)
		}
		status, resp, err := s.HTTP(ctx, c.method, c.path, body, c.header)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var r gqltest.Response
		if status == http.StatusOK && (json.Unmarshal(resp, &r) != nil || len(r.Errors) == 0) {
			t.Errorf("%s: HTTP 200 without a GraphQL error: %.300s", c.name, resp)
		}
	}
	// Nothing was created or changed.
	MustCheckSnapshot(t, s, model.all())
}

// testConcurrentMutations runs creates, rating and language updates and
// deletes from e2eMutators goroutines on two products, tracking the
// expected state, then compares everything with its recount.
func testConcurrentMutations(t *testing.T, s *Server, model *e2eModel) {
	const opsPerWorker = 30
	pids := []string{"Mug-07", "grinder_2"}
	langs := []string{"en", "de", "pt-BR", "fr", "IT"} // "IT" adds the language "it"

	// Each existing comment of the two products belongs to one goroutine,
	// so that the expected state does not depend on the interleaving.
	owned := make([][]string, e2eMutators)
	var ids []string
	for _, c := range model.all() {
		if slices.Contains(pids, c.Product) {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	for i, id := range ids {
		owned[i%e2eMutators] = append(owned[i%e2eMutators], id)
	}

	start, reqs := time.Now(), s.requests.Load()
	var (
		mu      sync.Mutex
		errs    []error
		deleted []string
		wg      sync.WaitGroup
	)
	for g := range e2eMutators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			r := rand.New(rand.NewPCG(uint64(g), 99))
			mine := owned[g]
			fail := func(err error) {
				mu.Lock()
				errs = append(errs, fmt.Errorf("goroutine %d: %w", g, err))
				mu.Unlock()
			}
			for op := range opsPerWorker {
				k := r.IntN(100)
				switch {
				case k < 35 || len(mine) == 0: // create, often 5 stars
					rating := 5
					if r.IntN(100) >= 45 {
						rating = 1 + r.IntN(4)
					}
					c, err := createComment(ctx, s, map[string]any{
						"productId": pids[r.IntN(len(pids))], "language": langs[r.IntN(len(langs))], "rating": rating,
						"author": fmt.Sprintf("writer %d", g), "title": fmt.Sprintf("op %d", op), "body": e2eBodies[r.IntN(len(e2eBodies))],
					}, time.Now())
					if err != nil {
						fail(err)
						return
					}
					model.put(c)
					mine = append(mine, c.ID)
				case k < 75: // update rating (in and out of 5 stars) and/or language, or text
					id := mine[r.IntN(len(mine))]
					cur, _ := model.get(id)
					in := map[string]any{"id": id}
					kind := r.IntN(4)
					if kind == 0 || kind == 2 {
						if cur.Rating == 5 {
							in["rating"] = 1 + r.IntN(4)
						} else if r.IntN(2) == 0 {
							in["rating"] = 5
						} else {
							in["rating"] = 1 + (cur.Rating+r.IntN(3))%4
						}
					}
					if kind == 1 || kind == 2 {
						l := langs[r.IntN(len(langs))]
						for canonLang(l) == cur.Lang {
							l = langs[r.IntN(len(langs))]
						}
						in["language"] = l
					}
					if kind == 3 {
						in["title"] = fmt.Sprintf("edited by %d at op %d", g, op)
						in["body"] = "Edited: " + cur.Body
					}
					c, err := updateComment(ctx, s, cur, in)
					if err != nil {
						fail(err)
						return
					}
					model.put(c)
				default: // delete
					i := r.IntN(len(mine))
					id := mine[i]
					mine = slices.Delete(mine, i, i+1)
					if err := deleteComment(ctx, s, id); err != nil {
						fail(err)
						return
					}
					model.remove(id)
					mu.Lock()
					deleted = append(deleted, id)
					mu.Unlock()
					if op%3 == 0 { // deleting it again is NOT_FOUND
						resp, err := s.Do(ctx, http.MethodPost, deleteMutation, map[string]any{"in": map[string]any{"id": id}})
						if err != nil {
							fail(err)
							return
						}
						if len(resp.Errors) == 0 || resp.Errors[0].Code() != "NOT_FOUND" {
							fail(fmt.Errorf("deleting %s twice: want NOT_FOUND, got %s %s", id, resp.ErrorSummary(), resp.Data))
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	reportErrors(t, "concurrent mutations", errs)
	t.Logf("%d goroutines × %d mutations: %d requests in %s", e2eMutators, opsPerWorker, s.requests.Load()-reqs, time.Since(start).Round(time.Millisecond))
	if t.Failed() {
		return
	}

	recs := model.all()
	MustCheckSnapshot(t, s, recs)

	// Deleted comments are gone.
	if len(deleted) > 0 {
		var q strings.Builder
		q.WriteString("{")
		for i, id := range deleted {
			fmt.Fprintf(&q, " d%d: comment(id: %q) { id }", i, id)
		}
		q.WriteString(" }")
		var got map[string]*struct{ ID string }
		MustQuery(t, s, q.String(), nil, &got)
		for i, id := range deleted {
			if c := got[fmt.Sprintf("d%d", i)]; c != nil {
				t.Errorf("comment(id: %q) = %+v after deleteComment, want null", id, *c)
			}
		}
	}

	// Every filter of the changed products, every page.
	filters := matrixFilters(recs, append(slices.Clone(pids), "toaster"), append(slices.Clone(e2eLangs), e2eNewLang, e2eNoLang))
	checkMatrix(t, s, recs, filters)
}
