package web

import (
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// server mounts the handlers the way the gateway does.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	Register(mux, "/graphql", "pre")
	RegisterWidget(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// A bare transport: no transparent gzip, so the test sees what is sent.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

var (
	refRE      = regexp.MustCompile(`(?:src|href)="([^"]*)"`)
	absURLRE   = regexp.MustCompile(`(?i)https?://[^\s"'<>)]+`)
	loadURLRE  = regexp.MustCompile(`(?i)(?:url\(\s*["']?|import\s*\(\s*["']|from\s*["']|new\s+Worker\(\s*["']|importScripts\(\s*["'])(?:https?:)?//`)
	localHosts = []string{"http://127.0.0.1", "http://localhost"}
)

func TestPagesServeTheirAssetsWithCSP(t *testing.T) {
	srv := server(t)
	for _, page := range []string{"/", "/demo", "/demo/"} {
		t.Run(page, func(t *testing.T) {
			res, body := get(t, srv, page)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s", page, res.Status)
			}
			checkCSP(t, page, res)
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("GET %s: Content-Type %q", page, ct)
			}
			refs := refRE.FindAllStringSubmatch(string(body), -1)
			if len(refs) < 2 {
				t.Fatalf("GET %s: expected script and style references, found %v", page, refs)
			}
			for _, m := range refs {
				ref := m[1]
				if strings.HasPrefix(ref, "data:") {
					continue
				}
				if !strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, "//") {
					t.Errorf("GET %s: reference %q is not a path on this server", page, ref)
					continue
				}
				res, body := get(t, srv, ref, "Accept-Encoding", "gzip")
				if res.StatusCode != http.StatusOK || len(body) == 0 {
					t.Errorf("GET %s (from %s): %s, %d bytes", ref, page, res.Status, len(body))
				}
				checkCSP(t, ref, res)
			}
		})
	}
}

func checkCSP(t *testing.T, path string, res *http.Response) {
	t.Helper()
	csp := res.Header.Get("Content-Security-Policy")
	if csp != CSP {
		t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
	}
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("GET %s: CSP lacks %q", path, want)
		}
	}
	if strings.Contains(csp, "http") || strings.Contains(csp, "*") {
		t.Errorf("GET %s: CSP names another host: %q", path, csp)
	}
}

// Every embedded file is served, and none loads anything from another host.
// Our own files (HTML, the demo, page.css) name no absolute URL at all; the
// vendor bundles hold URLs only as text (licences, docs links, XML
// namespaces), never as something loaded.
func TestEmbeddedFilesStayOnThisHost(t *testing.T) {
	srv := server(t)
	n := 0
	for _, set := range []struct {
		dir, prefix string
	}{{"dist/graphiql", "/graphiql/"}, {"demo", "/demo/"}, {"widget", "/widget/"}} {
		a := newAssets(set.dir, set.prefix)
		for _, p := range a.paths() {
			if strings.HasSuffix(p, "/index.html") {
				continue // served as /demo
			}
			n++
			res, body := get(t, srv, p)
			if res.StatusCode != http.StatusOK || len(body) == 0 {
				t.Errorf("GET %s: %s, %d bytes", p, res.Status, len(body))
			}
			if res.Header.Get("Content-Encoding") != "" {
				t.Errorf("GET %s without Accept-Encoding: Content-Encoding %q", p, res.Header.Get("Content-Encoding"))
			}
			checkCSP(t, p, res)
		}
	}
	if n < 8 {
		t.Errorf("only %d assets embedded", n)
	}

	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(strings.NewReader(string(body)))
			if err != nil {
				return err
			}
			if body, err = io.ReadAll(zr); err != nil {
				return err
			}
		}
		text := string(body)
		own := !strings.HasPrefix(p, "dist/") || strings.HasSuffix(p, "page.css")
		if own {
			for _, u := range absURLRE.FindAllString(text, -1) {
				t.Errorf("%s: absolute URL %s", p, u)
			}
		}
		// Look at each absolute or protocol-relative URL (fast: the bundles
		// are megabytes, a regexp over all of it is slow under -race) and
		// at what comes before it.
		for _, needle := range []string{"://", `"//`, "'//", "(//", "`//"} {
			for off := 0; ; {
				i := strings.Index(text[off:], needle)
				if i < 0 {
					break
				}
				i += off
				off = i + len(needle)
				window := text[max(0, i-40):min(len(text), i+40)]
				if !loadURLRE.MatchString(window) {
					continue
				}
				local := false
				for _, h := range localHosts {
					local = local || strings.Contains(window, h)
				}
				if !local {
					t.Errorf("%s loads from another host: %q", p, window)
				}
			}
		}
		if strings.Contains(text, "esm.sh") || strings.Contains(text, "cdn.jsdelivr") || strings.Contains(text, "unpkg.com") {
			t.Errorf("%s names a CDN", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGzippedAssets(t *testing.T) {
	srv := server(t)
	zipped, zbody := get(t, srv, "/graphiql/graphiql.js", "Accept-Encoding", "gzip, deflate")
	if zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", zipped.Header.Get("Content-Encoding"))
	}
	plain, pbody := get(t, srv, "/graphiql/graphiql.js")
	if plain.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(plain.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("plain: %v", plain.Header)
	}
	zr, err := gzip.NewReader(strings.NewReader(string(zbody)))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(unzipped) != string(pbody) || len(pbody) < len(zbody) {
		t.Fatalf("gzip and plain bodies differ (%d, %d, %d bytes)", len(zbody), len(unzipped), len(pbody))
	}
	if zipped.Header.Get("ETag") == plain.Header.Get("ETag") {
		t.Error("gzip and plain variants share an ETag")
	}
	again, _ := get(t, srv, "/graphiql/graphiql.js", "Accept-Encoding", "gzip", "If-None-Match", zipped.Header.Get("ETag"))
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %s", again.Status)
	}
}

func TestGraphiQLConfigAndNotFound(t *testing.T) {
	srv := server(t)
	_, body := get(t, srv, "/")
	for _, want := range []string{`"endpoint":"/graphql"`, `bread-maker`, `X-Explain`, `stats(language:`, `languages {`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("GraphiQL page lacks %q", want)
		}
	}
	_, body = get(t, srv, "/demo")
	if !strings.Contains(string(body), `<meta name="graphql-endpoint" content="/graphql">`) {
		t.Error("demo page lacks the endpoint")
	}
	if !strings.Contains(string(body), `<meta name="moderation" content="pre">`) {
		t.Error("demo page lacks the moderation mode")
	}
	for _, p := range []string{"/graphiql/", "/graphiql/nope.js", "/demo/nope.js", "/demo/index.html", "/demox", "/widget/", "/widget/nope.js"} {
		if res, _ := get(t, srv, p); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", p, res.Status)
		}
	}
}

// A shop's page on another origin loads the widget's module script with
// CORS: its files allow any origin; the pages and GraphiQL's do not.
func TestWidgetLoadsFromAnotherOrigin(t *testing.T) {
	srv := server(t)
	for _, p := range []string{"/widget/widget.js", "/widget/api.js", "/widget/widget.css"} {
		res, body := get(t, srv, p, "Origin", "https://shop.example.com")
		if res.StatusCode != http.StatusOK || len(body) == 0 {
			t.Fatalf("GET %s: %s, %d bytes", p, res.Status, len(body))
		}
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != "*" {
			t.Errorf("GET %s: Access-Control-Allow-Origin %q, want *", p, got)
		}
	}
	for _, p := range []string{"/demo", "/demo/demo.js", "/"} {
		if res, _ := get(t, srv, p, "Origin", "https://shop.example.com"); res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("GET %s: Access-Control-Allow-Origin %q, want none", p, res.Header.Get("Access-Control-Allow-Origin"))
		}
	}
}
