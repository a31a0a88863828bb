package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/testutil"
)

var accAddrRE = regexp.MustCompile(`listening on (http://127\.0\.0\.1:[0-9]+)/`)

// accServer is a server run in-process by run().
type accServer struct {
	URL    string
	Stderr *testutil.SyncBuffer
}

// MustServeInProcess runs the program with args (plus a fresh store on 127.0.0.1:0)
// until the test ends.
func MustServeInProcess(tb testing.TB, env map[string]string, args ...string) *accServer {
	tb.Helper()
	args = append(args, "-addr", "127.0.0.1:0", "-demo=false", "-store", "bolt:"+filepath.Join(tb.TempDir(), "c.db"))
	ctx, cancel := context.WithCancel(context.Background())
	var out testutil.SyncBuffer
	s := &accServer{Stderr: &testutil.SyncBuffer{}}
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, func(k string) string { return env[k] }, nil, &out, s.Stderr) }()
	tb.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("server stopped: %v", err)
			}
		case <-time.After(10 * time.Second):
			tb.Error("server did not stop")
		}
	})
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := accAddrRE.FindStringSubmatch(out.String()); m != nil {
			s.URL = m[1]
			return s
		}
		select {
		case err := <-done:
			tb.Fatalf("%v: exited: %v\n%s", args, err, s.Stderr)
		default:
		}
	}
	tb.Fatalf("%v: no address\n%s", args, s.Stderr)
	return nil
}

type accResult struct {
	status int
	header http.Header
	body   string
}

func (s *accServer) Do(tb testing.TB, method, path, body string, hdr ...string) accResult {
	tb.Helper()
	req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return accResult{res.StatusCode, res.Header, string(b)}
}

func accQuery(query string) string {
	b, _ := json.Marshal(map[string]string{"query": query})
	return string(b)
}

const accMutation = `mutation { createComment(input: {productId: "p1", language: "en", rating: 5, author: "Ann", title: "T", body: "B"}) { comment { id author } } }`

func TestServeRefusesToStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := "bolt:" + filepath.Join(t.TempDir(), "c.db")
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"serve", "-store", db}, nil, "-open-mutations"},
		{[]string{"serve", "-store", db}, map[string]string{"COMMENTS_DEV": "false"}, "-open-mutations"},
		{[]string{"-dev=false", "-store", db}, nil, "-open-mutations"},
		{[]string{"serve", "-store", db, "-open-mutations", "-api-keys", auth.HashKey("k")}, nil, "contradicts"},
		{[]string{"serve", "-store", db, "-api-keys", "not-a-hash"}, nil, "SHA-256"},
		{[]string{"serve", "-store", db, "-api-keys-file", "/nonexistent"}, nil, "-api-keys-file"},
		{[]string{"serve", "-store", db, "-open-mutations", "-jwt-issuer", "x"}, nil, "-jwks-url"},
		{[]string{"serve", "-store", db, "-jwks-url", "http://127.0.0.1:1/jwks"}, nil, "-jwt-issuer and -jwt-audience"},
		{[]string{"serve", "-store", db, "-jwks-url", "http://127.0.0.1:1/jwks", "-jwt-issuer", "idp"}, nil, "-jwt-issuer and -jwt-audience"},
		{[]string{"serve", "-store", db, "-jwks-url", "http://127.0.0.1:1/jwks", "-jwt-audience", "gw"}, nil, "-jwt-issuer and -jwt-audience"},
		{[]string{"-store", db, "-jwks-url", "http://127.0.0.1:1/jwks"}, nil, "-jwt-issuer and -jwt-audience"},
		{[]string{"serve", "-store", db, "-open-mutations", "-pprof"}, nil, "-pprof needs -metrics-addr"},
		{[]string{"serve", "-store", db, "-open-mutations", "-only-trusted-documents"}, nil, "-only-trusted-documents needs -trusted-documents"},
		{[]string{"serve", "-store", db, "-open-mutations", "-trusted-documents", "/nonexistent.json"}, nil, "-trusted-documents"},
		{[]string{"serve", "-store", db, "-open-mutations", "-trusted-documents", "go.mod"}, nil, "JSON object of id"},
		{[]string{"serve", "-store", db, "-open-mutations", "-log-format", "xml"}, nil, "-log-format"},
		{[]string{"serve", "-store", db, "-open-mutations", "-merge-sizing", "fast"}, nil, "-merge-sizing"},
	} {
		var out, errb bytes.Buffer
		err := run(ctx, tc.args, func(k string) string { return tc.env[k] }, nil, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: err = %v, want it to mention %q", tc.args, tc.env, err, tc.want)
		}
	}
}

// TestMergeSizingFlag: -merge-sizing changes how a merge sizes its first
// queries (seen in EXPLAIN), not what it returns.
func TestMergeSizingFlag(t *testing.T) {
	firstLimits := func(sizing string) (limits []int, ids string) {
		s := MustServeInProcess(t, nil, "-merge-sizing", sizing)
		for i := range 30 {
			m := fmt.Sprintf(`mutation { createComment(input: {productId: "p1", language: "en", rating: %d, author: "A", title: "T", body: "B"}) { comment { id } } }`, 1+2*(i%3))
			if r := s.Do(t, "POST", "/graphql", accQuery(m)); r.status != 200 || strings.Contains(r.body, "errors") {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
		}
		r := s.Do(t, "POST", "/graphql", accQuery(`{ product(id: "p1") { comments(ratings: [1, 3], first: 6) { nodes { id } } } }`), "X-Explain", "1")
		var body struct {
			Data       json.RawMessage
			Extensions struct {
				Plan []struct {
					Partitions []struct{ Limits []int }
				}
			}
		}
		if err := json.Unmarshal([]byte(r.body), &body); err != nil || len(body.Extensions.Plan) != 1 {
			t.Fatalf("%s: %v %s", sizing, err, r.body)
		}
		for _, p := range body.Extensions.Plan[0].Partitions {
			limits = append(limits, p.Limits[0])
		}
		return limits, string(body.Data)
	}
	lean, leanIDs := firstLimits("lean")
	few, fewIDs := firstLimits("few-rounds")
	if len(lean) != 2 || len(few) != 2 || lean[0] >= few[0] || lean[1] >= few[1] {
		t.Errorf("first limits: lean %v, few-rounds %v; want few-rounds larger", lean, few)
	}
	if strings.Count(leanIDs, `"id"`) != 6 || strings.Count(fewIDs, `"id"`) != 6 {
		t.Errorf("pages: lean %s, few-rounds %s", leanIDs, fewIDs)
	}
}

func TestDevMode(t *testing.T) {
	s := MustServeInProcess(t, nil) // no command word: dev mode
	if !strings.Contains(s.Stderr.String(), "WARNING: dev mode: mutations are open") || !strings.Contains(s.Stderr.String(), "level=WARN") {
		t.Errorf("no warning in text logs:\n%s", s.Stderr)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(accMutation)); r.status != 200 || strings.Contains(r.body, "errors") {
		t.Errorf("open mutation: %d %s", r.status, r.body)
	}
	if r := s.Do(t, "GET", "/", ""); r.status != 200 || !strings.Contains(r.body, "graphiql") && !strings.Contains(r.body, "GraphiQL") {
		t.Errorf("GraphiQL: %d %.100s", r.status, r.body)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(`{ __schema { queryType { name } } }`)); !strings.Contains(r.body, `"Query"`) {
		t.Errorf("introspection: %s", r.body)
	}
	// No -cors-origins: no CORS headers.
	r := s.Do(t, "OPTIONS", "/graphql", "", "Origin", "https://shop.example", "Access-Control-Request-Method", "POST")
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS without -cors-origins: %v", r.header)
	}
	// -open-mutations outside dev mode starts, with a warning.
	s2 := MustServeInProcess(t, nil, "serve", "-open-mutations")
	if !strings.Contains(s2.Stderr.String(), "WARNING: mutations are open") {
		t.Errorf("-open-mutations: no warning:\n%s", s2.Stderr)
	}
}

func TestServeProduction(t *testing.T) {
	const key = "prod-key-1"
	env := map[string]string{"COMMENTS_API_KEYS": auth.HashKey("other") + "," + auth.HashKey(key)}
	s := MustServeInProcess(t, env, "serve", "-cors-origins", "https://shop.example, https://*.shop.example")

	if r := s.Do(t, "GET", "/", ""); r.status != 404 {
		t.Errorf("GraphiQL is off by default in production: %d", r.status)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if r := s.Do(t, "GET", p, ""); r.status != 200 {
			t.Errorf("%s: %d", p, r.status)
		}
	}
	if r := s.Do(t, "GET", "/metrics", ""); r.status != 404 {
		t.Errorf("/metrics on the API listener in production (no -metrics-addr): %d, want 404", r.status)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(`{ __schema { queryType { name } } }`)); strings.Contains(r.body, `"Query"`) || !strings.Contains(r.body, "errors") {
		t.Errorf("introspection is off by default in production: %s", r.body)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(`{ prodct(id: "p1") { id } }`)); strings.Contains(r.body, "Did you mean") {
		t.Errorf("suggestions shown: %s", r.body)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(accMutation)); !strings.Contains(r.body, `"UNAUTHENTICATED"`) {
		t.Errorf("mutation without a key: %d %s", r.status, r.body)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(accMutation), "Authorization", "Bearer "+key); r.status != 200 || strings.Contains(r.body, "errors") {
		t.Errorf("mutation with a key: %d %s", r.status, r.body)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(`{ product(id: "p1") { stats { total } } }`)); !strings.Contains(r.body, `"total":1`) {
		t.Errorf("query without a key: %s", r.body)
	}

	// CORS: allowed origins get the headers, others none.
	for origin, allowed := range map[string]bool{"https://shop.example": true, "https://m.shop.example": true, "https://evil.example": false} {
		r := s.Do(t, "OPTIONS", "/graphql", "", "Origin", origin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type")
		if got := r.header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed || r.status >= 300 {
			t.Errorf("preflight from %s: %d, Allow-Origin %q", origin, r.status, got)
		}
		r = s.Do(t, "POST", "/graphql", accQuery(`{ __typename }`), "Origin", origin)
		if got := r.header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed {
			t.Errorf("POST from %s: Allow-Origin %q", origin, got)
		}
		if allowed && !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
			t.Errorf("X-Request-Id not exposed: %v", r.header)
		}
	}

	// JSON logs, one line per request, with its id.
	r := s.Do(t, "POST", "/graphql", accQuery(`query Named { product(id: "p1") { stats { total } } }`), "X-Request-Id", "trace-42")
	if r.header.Get("X-Request-Id") != "trace-42" {
		t.Errorf("X-Request-Id: %q", r.header.Get("X-Request-Id"))
	}
	var found bool
	for _, line := range strings.Split(s.Stderr.String(), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON log line: %q", line)
		}
		if rec["requestId"] == "trace-42" && rec["msg"] == "request" {
			found = rec["operation"] == "query Named" && rec["status"] == float64(200) && rec["itemsRead"] == float64(1)
		}
	}
	if !found {
		t.Errorf("no complete request line for trace-42:\n%s", s.Stderr)
	}
}

// TestServeJWT serves a JWKS with an EC key and checks the author and
// ownership rules through the whole server.
func TestServeJWT(t *testing.T) {
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := jwk.Import(ek)
	priv.Set(jwk.KeyIDKey, "k1")
	pub, _ := priv.PublicKey()
	set := jwk.NewSet()
	set.AddKey(pub)
	body, _ := json.Marshal(set)
	jwks := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })}
	ln := accListen(t)
	go jwks.Serve(ln)
	defer jwks.Close()

	sign := func(sub string, roles ...string) string {
		tok := jwt.New()
		tok.Set("sub", sub)
		tok.Set("iss", "idp")
		tok.Set("aud", "gw")
		tok.Set("exp", time.Now().Add(time.Hour))
		tok.Set("perms", roles)
		b, err := jwt.Sign(tok, jwt.WithKey(jwa.ES256(), priv))
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + string(b)
	}
	s := MustServeInProcess(t, nil, "serve", "-jwks-url", "http://"+ln.Addr().String()+"/jwks", "-jwt-issuer", "idp", "-jwt-audience", "gw", "-jwt-roles-claim", "perms")

	r := s.Do(t, "POST", "/graphql", accQuery(accMutation), "Authorization", sign("user-7"))
	var out struct {
		Data struct {
			CreateComment struct{ Comment struct{ ID, Author string } }
		}
	}
	json.Unmarshal([]byte(r.body), &out)
	c := out.Data.CreateComment.Comment
	if c.Author != "user-7" {
		t.Fatalf("author %q, want the subject: %s", c.Author, r.body)
	}
	del := accQuery(`mutation { deleteComment(input: {id: "` + c.ID + `"}) { deletedCommentId } }`)
	if r := s.Do(t, "POST", "/graphql", del, "Authorization", sign("user-8")); !strings.Contains(r.body, `"FORBIDDEN"`) {
		t.Errorf("another user deletes: %s", r.body)
	}
	if r := s.Do(t, "POST", "/graphql", del, "Authorization", sign("mod", "moderator")); strings.Contains(r.body, "errors") {
		t.Errorf("moderator deletes: %s", r.body)
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(accMutation), "Authorization", sign("x")+"x"); !strings.Contains(r.body, `"UNAUTHENTICATED"`) {
		t.Errorf("bad signature: %s", r.body)
	}
	// Validly signed, but with a crit header or a string date: refused.
	signRaw := func(claims string, hdr map[string]any) string {
		h := jws.NewHeaders()
		h.Set(jws.KeyIDKey, "k1")
		for k, v := range hdr {
			h.Set(k, v)
		}
		b, err := jws.Sign([]byte(claims), jws.WithKey(jwa.ES256(), priv, jws.WithProtectedHeaders(h)))
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + string(b)
	}
	exp := time.Now().Add(time.Hour).Unix()
	for name, tok := range map[string]string{
		"crit header": signRaw(fmt.Sprintf(`{"sub":"u","iss":"idp","aud":"gw","exp":%d}`, exp), map[string]any{"crit": []string{"x-ext"}, "x-ext": 1}),
		"string exp":  signRaw(fmt.Sprintf(`{"sub":"u","iss":"idp","aud":"gw","exp":"%d"}`, exp), nil),
		"string iat":  signRaw(fmt.Sprintf(`{"sub":"u","iss":"idp","aud":"gw","exp":%d,"iat":"0"}`, exp), nil),
	} {
		if r := s.Do(t, "POST", "/graphql", accQuery(accMutation), "Authorization", tok); !strings.Contains(r.body, `"UNAUTHENTICATED"`) {
			t.Errorf("%s: %s", name, r.body)
		}
	}
	if r := s.Do(t, "POST", "/graphql", accQuery(accMutation), "Authorization", signRaw(fmt.Sprintf(`{"sub":"u","iss":"idp","aud":"gw","exp":%d}`, exp), nil)); strings.Contains(r.body, "errors") {
		t.Errorf("the same token without the oddity: %s", r.body)
	}
}
func accListen(tb testing.TB) net.Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln
}
