package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// pageReply is a gateway reply to a page with the given ids.
func pageReply(total int, ids ...string) []byte {
	var edges []string
	for _, id := range ids {
		edges = append(edges, `{"cursor":"c-`+id+`","node":{"id":"`+id+`","rating":5,"language":"en","author":"ann","title":"t","body":"b","createdAt":"2024-01-01T00:00:00Z"}}`)
	}
	return []byte(`{"data":{"product":{"comments":{"totalCount":` + strconv.Itoa(total) +
		`,"pageInfo":{"hasNextPage":true,"endCursor":"c-` + ids[len(ids)-1] + `"},"edges":[` + strings.Join(edges, ",") + `]}}}}`)
}

// replyServer is a GraphQL endpoint on 127.0.0.1 that answers every
// request with the status and body next gives it, and keeps the bodies it
// was sent.
type replyServer struct {
	mu   sync.Mutex
	next func() (int, []byte)
	got  [][]byte
}

func (rs *replyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rs.mu.Lock()
	rs.got = append(rs.got, body)
	status, reply := rs.next()
	rs.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(reply)
}

func (rs *replyServer) answer(status int, reply []byte) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.next = func() (int, []byte) { return status, reply }
}

// recorded starts a replyServer answering recorded, and walks one page of
// it as the load's preparation does.
func recorded(t *testing.T, recorded []byte) (*replyServer, *system, *exchange) {
	t.Helper()
	rs := &replyServer{}
	rs.answer(http.StatusOK, recorded)
	srv := httptest.NewServer(rs) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	s, err := newSystem("gateway", srv.URL+"/graphql", "", gatewayDialect, 4)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := s.page(context.Background(), "p1", &filter{language: "en", ratings: []int{2, 3}}, "")
	if err != nil {
		t.Fatal(err)
	}
	return rs, s, x
}

// TestCheckReplies: a reply byte-identical to the walk's is right without
// decoding; one that differs is decoded and right only with the walk's ids,
// totalCount and hasNextPage and no error.
func TestCheckReplies(t *testing.T) {
	good := pageReply(3, "a", "b", "c")
	rs, s, x := recorded(t, good)
	if want := (pageSummary{ids: []string{"a", "b", "c"}, totalCount: 3, hasNextPage: true}); !x.want.equal(want) {
		t.Fatalf("the walk recorded %v, want %v", x.want, want)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, good, "", "  "); err != nil {
		t.Fatal(err)
	}
	withExtensions := append(bytes.TrimSuffix(bytes.Clone(good), []byte("}")), []byte(`,"extensions":{"cost":{"reads":3}}}`)...)
	for _, tc := range []struct {
		name      string
		status    int
		reply     []byte
		slow, bad bool
	}{
		{"byte-identical", 200, good, false, false},
		{"indented", 200, indented.Bytes(), true, false},
		{"with extensions", 200, withExtensions, true, false},
		{"other ids", 200, pageReply(3, "a", "x", "c"), true, true},
		{"ids in another order", 200, pageReply(3, "a", "c", "b"), true, true},
		{"a missing id", 200, pageReply(3, "a", "b"), true, true},
		{"other totalCount", 200, pageReply(4, "a", "b", "c"), true, true},
		{"a GraphQL error", 200, append(bytes.TrimSuffix(bytes.Clone(good), []byte("}")), []byte(`,"errors":[{"message":"boom"}]}`)...), true, true},
		{"HTTP 500 with the same body", 500, good, true, true},
		{"not JSON", 200, []byte("<html>"), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs.answer(tc.status, tc.reply)
			k, err := s.client.caller(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			status, reply, err := k.post(x.body)
			if err != nil {
				t.Fatal(err)
			}
			slow, err := x.check(status, reply)
			if slow != tc.slow || (err != nil) != tc.bad {
				t.Errorf("slow %t, error %v; want slow %t, error %t", slow, err, tc.slow, tc.bad)
			}
		})
	}
	// Every request sent the body encoded once on the walk, unchanged.
	var sent struct {
		Query     string
		Variables map[string]any
	}
	if err := json.Unmarshal(x.body, &sent); err != nil || !strings.Contains(sent.Query, "comments(language: $lang") ||
		sent.Variables["p"] != "p1" || sent.Variables["lang"] != "en" || sent.Variables["after"] != nil {
		t.Errorf("request body %s (%v)", x.body, err)
	}
	for i, b := range rs.got {
		if !bytes.Equal(b, x.body) {
			t.Errorf("request %d sent %s, want %s", i, b, x.body)
		}
	}
}

// mixedLoad starts a server whose replies to the walk's page cycle through
// good ones, indented ones (every third) and ones with other ids (every
// fifth), runs the load on it with o, and returns the result and the
// replies served of each kind (and in all), read after the load.
func mixedLoad(t *testing.T, o options) (result, map[string]int) {
	t.Helper()
	good := pageReply(3, "a", "b", "c")
	var indented bytes.Buffer
	json.Indent(&indented, good, "", " ")
	bad := pageReply(3, "a", "b", "z")
	rs, s, x := recorded(t, good)
	served := map[string]int{}
	rs.mu.Lock()
	rs.got = nil
	rs.next = func() (int, []byte) {
		served["all"]++
		switch {
		case served["all"]%5 == 0:
			served["bad"]++
			return 200, bad
		case served["all"]%3 == 0:
			served["indented"]++
			return 200, indented.Bytes()
		}
		served["good"]++
		return 200, good
	}
	rs.mu.Unlock()
	sc := &scenario{name: "page", pages: map[string][]*exchange{s.name: {x}}}
	r := load(context.Background(), o, sc, s)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if served["bad"] == 0 || served["indented"] == 0 {
		t.Fatalf("too few requests to test: %v (%s)", served, r.firstError)
	}
	for i, b := range rs.got {
		if !bytes.Equal(b, x.body) {
			t.Fatalf("request %d sent %.200s, want %.200s", i, b, x.body)
		}
	}
	return r, served
}

// TestLoadCounts: under load, every reply is counted once: byte-identical
// ones as right, indented ones as right through the slow path, ones with
// other ids as errors; the counts match the server's own.
func TestLoadCounts(t *testing.T) {
	r, served := mixedLoad(t, options{duration: 300 * time.Millisecond, concurrency: 4})
	if r.ok != served["good"]+served["indented"] || r.errors != served["bad"] || r.slow != served["indented"]+served["bad"] {
		t.Errorf("ok %d, errors %d, slow %d; the server served %v", r.ok, r.errors, r.slow, served)
	}
	if !strings.Contains(r.firstError, "[a b z]") {
		t.Errorf("first error %q does not name the unexpected id", r.firstError)
	}
}

// TestWrkLoadCounts: under -wrk, replies byte-identical to the walk's count
// as right and every other reply (indented, other ids) as an error; the
// counts match the server's own. Skipped when wrk is not installed.
func TestWrkLoadCounts(t *testing.T) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk is not installed")
	}
	r, served := mixedLoad(t, options{duration: time.Second, concurrency: 2, wrk: wrk})
	// wrk stops at its deadline without reading the replies in flight: the
	// server may have served up to one reply per connection more than wrk
	// counted.
	inFlight := served["all"] - (r.ok + r.errors)
	wrong := served["bad"] + served["indented"]
	if r.ok > served["good"] || r.ok < served["good"]-2 || r.errors > wrong || r.errors < wrong-2 || inFlight < 0 || inFlight > 2 {
		t.Errorf("ok %d, errors %d; the server served %v", r.ok, r.errors, served)
	}
}

// BenchmarkReplay is one client replaying one page to an in-process server
// (the server's allocations are counted too).
func BenchmarkReplay(b *testing.B) {
	good := bytes.Repeat([]byte(" "), 5000)
	good = append(pageReply(3, "a", "b", "c"), good...)
	rs := &replyServer{}
	rs.answer(200, good)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write(good)
	}))
	defer srv.Close()
	s, _ := newSystem("gateway", srv.URL+"/graphql", "", gatewayDialect, 1)
	x := &exchange{body: bytes.Repeat([]byte("x"), 600), reply: good}
	k, _ := s.client.caller(context.Background())
	var w result
	b.ReportAllocs()
	for b.Loop() {
		replay(k, x, &w)
	}
	if w.ok != b.N {
		b.Fatal(w)
	}
}
