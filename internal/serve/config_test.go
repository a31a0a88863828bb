package serve

import (
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/internal/testutil"
)

// TestServeFlagDefaultsMatchREADME: every serve flag whose default the
// documentation's flag table ("Every serve flag", docs/operations.md)
// writes as one value (`10s`, `64MiB`, none) has that default in the flag
// set itself. Defaults that depend on the mode (-dev,
// -log-format, -introspection, …) are written as prose and not compared.
func TestServeFlagDefaultsMatchREADME(t *testing.T) {
	table := testutil.DocWith(t, "Every serve flag, its default")
	doc := table.Text
	start := strings.Index(doc, "Every serve flag, its default")
	row := regexp.MustCompile("(?m)^\\| `-([a-z0-9-]+)` \\| ([^|]*) \\|")
	literal := regexp.MustCompile("^(?:`([^`]+)`|(none))(?: \\(.*\\))?$")
	compared := 0
	for _, line := range strings.Split(doc[start:], "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			if compared > 0 && !strings.HasPrefix(line, "|") {
				break // the end of the table
			}
			continue
		}
		v := literal.FindStringSubmatch(strings.TrimSpace(m[2]))
		if v == nil {
			continue
		}
		name, want := m[1], v[1] // "" for none
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		(&Config{}).register(fs, false)
		f := fs.Lookup(name)
		if f == nil {
			t.Errorf("%s: -%s is not a serve flag", table.Path, name)
			continue
		}
		compared++
		if want == "" {
			if f.DefValue != "" {
				t.Errorf("%s: -%s defaults to none; the flag set says %q", table.Path, name, f.DefValue)
			}
			continue
		}
		// Compare values, not spellings: 64MiB is 67108864, 1ms is 1ms.
		if err := fs.Set(name, want); err != nil {
			t.Errorf("%s: -%s default %q is not a valid value: %v", table.Path, name, want, err)
		} else if got := f.Value.String(); got != f.DefValue {
			t.Errorf("%s: -%s defaults to %s (%s); the flag set says %s", table.Path, name, want, got, f.DefValue)
		}
	}
	if compared < 30 {
		t.Fatalf("compared the defaults of only %d flags: is the table of %s still understood?", compared, table.Path)
	}
}

// TestServeConfigPrecedence: a flag's value comes from the command line,
// else its COMMENTS_* variable, else its default; the defaults that depend
// on -dev follow it unless set.
func TestServeConfigPrecedence(t *testing.T) {
	env := map[string]string{"COMMENTS_ADDR": "127.0.0.1:9999", "COMMENTS_STORE": "dynamodb:from-env", "COMMENTS_DEV": "true",
		"COMMENTS_COST_CACHE_BYTES": "1MiB", "COMMENTS_APQ_CACHE_BYTES": "2MiB"}
	getenv := func(k string) string { return env[k] }
	c, err := ParseConfig([]string{"-store", "bolt:/tmp/x.db", "-introspection=false", "-apq-cache-bytes", "3MB"}, false, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.addr != "127.0.0.1:9999" {
		t.Errorf("addr %q: want the environment's", c.addr)
	}
	if q := c.caches; q.CostBytes != 1<<20 || q.APQBytes != 3_000_000 || q.DocumentBytes != policy.DefaultDocumentCacheBytes {
		t.Errorf("query caches %+v: want cost from the environment, APQ from the command line, documents by default", q)
	}
	if c.store != (storespec.Spec{Kind: "bolt", Arg: "/tmp/x.db"}) || c.store.String() != "bolt:/tmp/x.db" {
		t.Errorf("store %+v: want the command line's bolt:/tmp/x.db", c.store)
	}
	if !c.access.dev || c.introspection || !c.graphiql || c.logFormat != "text" {
		t.Errorf("dev %v introspection %v graphiql %v log %q: want dev from the environment, introspection off as set, GraphiQL and text logs as dev mode's",
			c.access.dev, c.introspection, c.graphiql, c.logFormat)
	}
	c, err = ParseConfig([]string{"-cors-origins", " https://a.example, ,https://b.example", "-micro-cache-bytes", "1KiB", "-shutdown-timeout", "3s"}, false, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.access.dev || c.introspection || c.graphiql || c.logFormat != "json" || c.store.String() != storespec.Default {
		t.Errorf("production defaults: dev %v introspection %v graphiql %v log %q store %s", c.access.dev, c.introspection, c.graphiql, c.logFormat, c.store)
	}
	if strings.Join(c.corsOrigins, " ") != "https://a.example https://b.example" || c.micro.MaxBytes != 1024 || c.shutdownTimeout != 3*time.Second {
		t.Errorf("cors %q, micro-cache bytes %d, shutdown timeout %s", c.corsOrigins, c.micro.MaxBytes, c.shutdownTimeout)
	}
}

// TestServeConfigPprofAddr: -pprof is served on a loopback or private
// -metrics-addr, as -admin-addr is, or anywhere with -pprof-public.
func TestServeConfigPprofAddr(t *testing.T) {
	for _, args := range [][]string{
		{"-pprof", "-metrics-addr", "127.0.0.1:9090"},
		{"-pprof", "-metrics-addr", "localhost:9090"},
		{"-pprof", "-metrics-addr", "10.1.2.3:9090"},
		{"-pprof", "-pprof-public", "-metrics-addr", "0.0.0.0:9090"},
		{"-metrics-addr", "0.0.0.0:9090"},
	} {
		if _, err := ParseConfig(args, true, func(string) string { return "" }, io.Discard); err != nil {
			t.Errorf("serve %s: %v", strings.Join(args, " "), err)
		}
	}
}

// TestServeConfigRefuses: values the server cannot run with are refused
// before anything starts, with a message that names the flag.
func TestServeConfigRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-store", "sqlite:x"}, `-store "sqlite:x": unknown store "sqlite"`},
		{[]string{"-store", "bolt:"}, `-store "bolt:": want bolt:PATH or dynamodb:TABLE`},
		{[]string{"-log-format", "xml"}, `-log-format "xml": want text or json`},
		{[]string{"-read-timeout", "0s"}, "-read-timeout 0s: want a positive duration"},
		{[]string{"-micro-cache-ttl", "-1s"}, "-micro-cache-ttl -1s, -micro-cache-bytes"},
		{[]string{"-apq-cache-size", "-1"}, "-apq-cache-size -1: want 0 (off) or more"},
		{[]string{"-max-inflight-client", "0"}, "-max-inflight-client 0: want a positive number, or a negative one for no bound"},
		{[]string{"-document-cache-bytes", "0"}, "-document-cache-bytes 0, -cost-cache-bytes 33554432, -apq-cache-bytes 8388608, -max-cached-query-bytes 65536: want positive sizes"},
		{[]string{"-pprof"}, "-pprof needs -metrics-addr"},
		{[]string{"-pprof", "-metrics-addr", "0.0.0.0:9090"}, `-metrics-addr "0.0.0.0:9090": with -pprof it serves Go's profiles and the command line unauthenticated`},
		{[]string{"-pprof", "-metrics-addr", ":9090"}, "-pprof-public"},
		{[]string{"-pprof", "-metrics-addr", "203.0.113.9:9090"}, "-pprof-public"},
		{[]string{"-trusted-proxy-hops", "1", "-trusted-proxies", "10.0.0.0/8"}, "give one"},
		{[]string{"-trust-forwarded-for", "-trusted-proxy-hops", "2"}, "-trust-forwarded-for is deprecated"},
		{[]string{"-trusted-proxies", "10.0.0.0/33"}, "-trusted-proxies"},
		{[]string{"-trusted-proxy-hops", "1", "-forwarded-header", "X-Real-IP"}, "-forwarded-header"},
		{[]string{"-client-ipv6-prefix", "129"}, "-client-ipv6-prefix"},
		{[]string{"-merge-sizing", "fast"}, `-merge-sizing "fast": want auto, lean, balanced, spread, few-rounds or one-round`},
		{[]string{"extra"}, `serve: unexpected argument "extra"`},
	} {
		_, err := ParseConfig(tc.args, true, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve %s: got %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestDemoAndOriginDefaultsFollowTheMode: without a command word (dev mode)
// the demo data loads and local origins are allowed; `serve` loads demo
// data only when -demo (or COMMENTS_DEMO) says so, and allows no
// cross-origin request unless -cors-origins lists it; -dev alone changes
// neither demo nor a given -cors-origins.
func TestDemoAndOriginDefaultsFollowTheMode(t *testing.T) {
	for _, tc := range []struct {
		devDefault bool
		args       []string
		env        map[string]string
		demo       bool
		origins    string
	}{
		{true, nil, nil, true, "http://localhost:*,http://127.0.0.1:*"},
		{false, []string{"-open-mutations"}, nil, false, ""},
		{false, []string{"-dev"}, nil, false, "http://localhost:*,http://127.0.0.1:*"},
		{false, []string{"-open-mutations", "-demo"}, nil, true, ""},
		{false, []string{"-open-mutations"}, map[string]string{"COMMENTS_DEMO": "true"}, true, ""},
		{true, []string{"-demo=false", "-cors-origins", "https://shop.example"}, nil, false, "https://shop.example"},
		{true, []string{"-cors-origins="}, nil, true, ""},
	} {
		c, err := ParseConfig(tc.args, tc.devDefault, func(k string) string { return tc.env[k] }, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := strings.Join(c.corsOrigins, ","); c.demo != tc.demo || got != tc.origins {
			t.Errorf("dev default %v, %v %v: demo %v origins %q; want %v %q", tc.devDefault, tc.args, tc.env, c.demo, got, tc.demo, tc.origins)
		}
	}
}
