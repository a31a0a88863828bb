package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqltest"
)

// MustServe starts the binary with args (a command word, or none for dev
// mode) on 127.0.0.1:0 and a fresh bolt store, with env (KEY=VALUE pairs)
// added to its environment; it is stopped by its pid (SIGTERM, and it must
// exit cleanly) when the test ends.
func MustServe(tb testing.TB, env []string, args ...string) *Server {
	tb.Helper()
	argv := append(slices.Clone(args), "-addr", "127.0.0.1:0", "-demo=false", "-store", "bolt:"+filepath.Join(tb.TempDir(), "c.db"))
	return startServer(tb, MustBinary(tb), argv, env, func(s *Server) { s.Stop(tb) })
}

// MustRequest sends one request to path (a JSON body, if any) with header
// pairs and reads the whole reply, whatever its status.
func (s *Server) MustRequest(tb testing.TB, method, path, body string, hdr ...string) *gqltest.Response {
	tb.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	return s.root.MustSend(tb, method, path, b, gqltest.Headers(hdr...))
}

// waitLog reports whether the server's log (its complete lines) satisfies
// ok within e2eListenTimeout: the log arrives through a pipe of its own,
// so a line the server wrote before it answered may still be on its way.
func (s *Server) waitLog(ok func(log string) bool) bool {
	for deadline := time.Now().Add(e2eListenTimeout); ; time.Sleep(10 * time.Millisecond) {
		log := s.stderr.String()
		if ok(log[:strings.LastIndexByte(log, '\n')+1]) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func accQuery(query string) string {
	b, _ := json.Marshal(map[string]string{"query": query})
	return string(b)
}

const accMutation = `mutation { createComment(input: {productId: "p1", language: "en", rating: 5, author: "Ann", title: "T", body: "B"}) { comment { id author } } }`

// TestServeRefusesContradictoryOrIncompleteConfig: serve exits non-zero,
// naming the flag to fix, without -open-mutations or a credential outside
// dev mode, with contradicting or half-given auth, pprof, trusted-document,
// log or merge flags.
func TestServeRefusesContradictoryOrIncompleteConfig(t *testing.T) {
	notManifest, err := filepath.Abs(filepath.Join(moduleRoot, "go.mod")) // a file, not JSON
	if err != nil {
		t.Fatal(err)
	}
	db := "bolt:" + filepath.Join(t.TempDir(), "c.db")
	for _, tc := range []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"serve", "-store", db}, nil, "-open-mutations"},
		{[]string{"serve", "-store", db}, []string{"COMMENTS_DEV=false"}, "-open-mutations"},
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
		{[]string{"serve", "-store", db, "-open-mutations", "-pprof", "-metrics-addr", "0.0.0.0:9090"}, nil, "-pprof-public"},
		{[]string{"serve", "-store", db, "-open-mutations", "-trust-forwarded-for", "-trusted-proxies", "10.0.0.0/8"}, nil, "-trust-forwarded-for is deprecated"},
		{[]string{"serve", "-store", db, "-open-mutations", "-only-trusted-documents"}, nil, "-only-trusted-documents needs -trusted-documents"},
		{[]string{"serve", "-store", db, "-open-mutations", "-trusted-documents", "/nonexistent.json"}, nil, "-trusted-documents"},
		{[]string{"serve", "-store", db, "-open-mutations", "-trusted-documents", notManifest}, nil, "JSON object of id"},
		{[]string{"serve", "-store", db, "-open-mutations", "-log-format", "xml"}, nil, "-log-format"},
		{[]string{"serve", "-store", db, "-open-mutations", "-merge-sizing", "fast"}, nil, "-merge-sizing"},
	} {
		_, stderr, err := runGW(t, tc.env, tc.args...)
		if msg := errorLine(stderr); err == nil || !strings.Contains(msg, tc.want) {
			t.Errorf("%v %v: exit %v, error %q, want it to mention %q\n%s", tc.args, tc.env, err, msg, tc.want, tail(stderr, 2000))
		}
	}
}

// TestMergeSizingChangesFirstLimitsNotResults: -merge-sizing changes how a
// merge sizes its first queries (seen in EXPLAIN), not what it returns.
func TestMergeSizingChangesFirstLimitsNotResults(t *testing.T) {
	firstLimits := func(sizing string) (limits []int, ids string) {
		s := MustServe(t, nil, "-merge-sizing", sizing)
		for i := range 30 {
			m := fmt.Sprintf(`mutation { createComment(input: {productId: "p1", language: "en", rating: %d, author: "A", title: "T", body: "B"}) { comment { id } } }`, 1+2*(i%3))
			if r := s.MustRequest(t, "POST", "/graphql", accQuery(m)); r.Status != 200 || strings.Contains(string(r.Body), "errors") {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
		}
		r := s.MustRequest(t, "POST", "/graphql", accQuery(`{ product(id: "p1") { comments(ratings: [1, 3], first: 6) { nodes { id } } } }`), "X-Explain", "1")
		var body struct {
			Data       json.RawMessage
			Extensions struct {
				Plan []struct {
					Partitions []struct{ Limits []int }
				}
			}
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Extensions.Plan) != 1 {
			t.Fatalf("%s: %v %s", sizing, err, r.Body)
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

// TestDevModeOpensMutationsWithAWarning: dev mode (no command word) warns
// in text logs, takes mutations without a credential, serves GraphiQL and
// introspection, and sends no CORS headers without -cors-origins;
// `serve -open-mutations` warns too.
func TestDevModeOpensMutationsWithAWarning(t *testing.T) {
	s := MustServe(t, nil) // no command word: dev mode
	if !s.waitLog(func(log string) bool {
		return strings.Contains(log, "WARNING: dev mode: mutations are open") && strings.Contains(log, "level=WARN")
	}) {
		t.Errorf("no warning in text logs:\n%s", s.stderr)
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(accMutation)); r.Status != 200 || strings.Contains(string(r.Body), "errors") {
		t.Errorf("open mutation: %d %s", r.Status, r.Body)
	}
	if r := s.MustRequest(t, "GET", "/", ""); r.Status != 200 || !strings.Contains(string(r.Body), "graphiql") && !strings.Contains(string(r.Body), "GraphiQL") {
		t.Errorf("GraphiQL: %d %.100s", r.Status, string(r.Body))
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(`{ __schema { queryType { name } } }`)); !strings.Contains(string(r.Body), `"Query"`) {
		t.Errorf("introspection: %s", r.Body)
	}
	// No -cors-origins: no CORS headers.
	r := s.MustRequest(t, "OPTIONS", "/graphql", "", "Origin", "https://shop.example", "Access-Control-Request-Method", "POST")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS without -cors-origins: %v", r.Header)
	}
	// -open-mutations outside dev mode starts, with a warning.
	s2 := MustServe(t, nil, "serve", "-open-mutations")
	if !s2.waitLog(func(log string) bool { return strings.Contains(log, "WARNING: mutations are open") }) {
		t.Errorf("-open-mutations: no warning:\n%s", s2.stderr)
	}
}

// TestProductionModeDefaults: serve hides GraphiQL, /metrics,
// introspection and suggestions, needs a key for mutations (not for reads),
// answers CORS for its origins only, and logs one JSON line per request
// with its id.
func TestProductionModeDefaults(t *testing.T) {
	const key = "prod-key-1"
	env := []string{"COMMENTS_API_KEYS=" + auth.HashKey("other") + "," + auth.HashKey(key)}
	s := MustServe(t, env, "serve", "-cors-origins", "https://shop.example, https://*.shop.example")

	if r := s.MustRequest(t, "GET", "/", ""); r.Status != 404 {
		t.Errorf("GraphiQL is off by default in production: %d", r.Status)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if r := s.MustRequest(t, "GET", p, ""); r.Status != 200 {
			t.Errorf("%s: %d", p, r.Status)
		}
	}
	if r := s.MustRequest(t, "GET", "/metrics", ""); r.Status != 404 {
		t.Errorf("/metrics on the API listener in production (no -metrics-addr): %d, want 404", r.Status)
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(`{ __schema { queryType { name } } }`)); strings.Contains(string(r.Body), `"Query"`) || !strings.Contains(string(r.Body), "errors") {
		t.Errorf("introspection is off by default in production: %s", r.Body)
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(`{ prodct(id: "p1") { id } }`)); strings.Contains(string(r.Body), "Did you mean") {
		t.Errorf("suggestions shown: %s", r.Body)
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(accMutation)); !strings.Contains(string(r.Body), `"UNAUTHENTICATED"`) {
		t.Errorf("mutation without a key: %d %s", r.Status, r.Body)
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(accMutation), "Authorization", "Bearer "+key); r.Status != 200 || strings.Contains(string(r.Body), "errors") {
		t.Errorf("mutation with a key: %d %s", r.Status, r.Body)
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(`{ product(id: "p1") { stats { total } } }`)); !strings.Contains(string(r.Body), `"total":1`) {
		t.Errorf("query without a key: %s", r.Body)
	}

	// CORS: allowed origins get the headers, others none (a preflight 403:
	// TestOriginsOneRule).
	for origin, allowed := range map[string]bool{"https://shop.example": true, "https://m.shop.example": true, "https://evil.example": false} {
		r := s.MustRequest(t, "OPTIONS", "/graphql", "", "Origin", origin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type")
		if got := r.Header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed || (r.Status >= 300) == allowed {
			t.Errorf("preflight from %s: %d, Allow-Origin %q", origin, r.Status, got)
		}
		r = s.MustRequest(t, "POST", "/graphql", accQuery(`{ __typename }`), "Origin", origin)
		if got := r.Header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed {
			t.Errorf("POST from %s: Allow-Origin %q", origin, got)
		}
		if allowed && !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
			t.Errorf("X-Request-Id not exposed: %v", r.Header)
		}
	}

	// JSON logs, one line per request, with its id.
	r := s.MustRequest(t, "POST", "/graphql", accQuery(`query Named { product(id: "p1") { stats { total } } }`), "X-Request-Id", "trace-42")
	if r.Header.Get("X-Request-Id") != "trace-42" {
		t.Errorf("X-Request-Id: %q", r.Header.Get("X-Request-Id"))
	}
	var notJSON string
	found := s.waitLog(func(log string) (found bool) {
		for _, line := range strings.Split(log, "\n") {
			if line == "" {
				continue
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				notJSON = line
				return true
			}
			if rec["requestId"] == "trace-42" && rec["msg"] == "request" {
				// itemsRead is 0: the query before read the same stats, and
				// nothing was written since (store.ReadStats).
				found = rec["operation"] == "query Named" && rec["status"] == float64(200) &&
					rec["itemsRead"] == float64(0) && rec["storeRequests"] == float64(0)
			}
		}
		return found
	})
	if notJSON != "" {
		t.Fatalf("not a JSON log line: %q", notJSON)
	}
	if !found {
		t.Errorf("no complete request line for trace-42:\n%s", s.stderr)
	}
}

// TestJWTSubjectIsTheAuthorAndOnlyOwnersOrModeratorsChange serves a JWKS
// with an EC key and checks the author and ownership rules through the whole
// server.
func TestJWTSubjectIsTheAuthorAndOnlyOwnersOrModeratorsChange(t *testing.T) {
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
	s := MustServe(t, nil, "serve", "-jwks-url", "http://"+ln.Addr().String()+"/jwks", "-jwt-issuer", "idp", "-jwt-audience", "gw", "-jwt-roles-claim", "perms")

	r := s.MustRequest(t, "POST", "/graphql", accQuery(accMutation), "Authorization", sign("user-7"))
	var out struct {
		Data struct {
			CreateComment struct{ Comment struct{ ID, Author string } }
		}
	}
	json.Unmarshal(r.Body, &out)
	c := out.Data.CreateComment.Comment
	if c.Author != "user-7" {
		t.Fatalf("author %q, want the subject: %s", c.Author, r.Body)
	}
	del := accQuery(`mutation { deleteComment(input: {id: "` + c.ID + `"}) { deletedCommentId } }`)
	if r := s.MustRequest(t, "POST", "/graphql", del, "Authorization", sign("user-8")); !strings.Contains(string(r.Body), `"FORBIDDEN"`) {
		t.Errorf("another user deletes: %s", r.Body)
	}
	if r := s.MustRequest(t, "POST", "/graphql", del, "Authorization", sign("mod", "moderator")); strings.Contains(string(r.Body), "errors") {
		t.Errorf("moderator deletes: %s", r.Body)
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(accMutation), "Authorization", sign("x")+"x"); !strings.Contains(string(r.Body), `"UNAUTHENTICATED"`) {
		t.Errorf("bad signature: %s", r.Body)
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
		if r := s.MustRequest(t, "POST", "/graphql", accQuery(accMutation), "Authorization", tok); !strings.Contains(string(r.Body), `"UNAUTHENTICATED"`) {
			t.Errorf("%s: %s", name, r.Body)
		}
	}
	if r := s.MustRequest(t, "POST", "/graphql", accQuery(accMutation), "Authorization", signRaw(fmt.Sprintf(`{"sub":"u","iss":"idp","aud":"gw","exp":%d}`, exp), nil)); strings.Contains(string(r.Body), "errors") {
		t.Errorf("the same token without the oddity: %s", r.Body)
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
