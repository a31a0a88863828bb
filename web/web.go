package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// CSP is the Content-Security-Policy of every page and asset: everything from
// this origin only. GraphiQL's editor (Monaco) inserts <style> elements and
// runs its language services in workers; its icon font and images may be
// data: URIs.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed dist demo widget graphiql.html
var files embed.FS

// DefaultQuery is the query GraphiQL opens with (on a browser that has no
// saved query): a product's comments with filters, its stats and languages.
const DefaultQuery = `# Comments of one product, newest first, filtered by language and ratings.
# The X-Explain header (see Headers below) adds the read plan to
# "extensions.plan". Page on with after: pageInfo.endCursor.
query ProductComments {
  product(id: "bread-maker") {
    id
    stats(language: "de") {
      total
      averageRating
      ratings { rating count }
    }
    languages { language total }
    comments(language: "de", ratings: [1, 2, 3], first: 5) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges {
        cursor
        node { id rating author title createdAt }
      }
    }
  }
}
`

// DefaultHeaders is GraphiQL's header preset.
const DefaultHeaders = `{"X-Explain": "1"}`

// Register mounts GraphiQL at / (assets under /graphiql/) and the demo at
// /demo on mux, both talking to the GraphQL endpoint at endpoint; moderation
// is the gateway's -moderation mode ("off", "pre" or "post"), which tells
// the demo whether to offer its moderator view. The demo loads the reviews
// widget from /widget/ (RegisterWidget).
func Register(mux *http.ServeMux, endpoint, moderation string) {
	g := GraphiQL(endpoint)
	mux.Handle("GET /{$}", g)
	mux.Handle("GET /graphiql/", g)
	d := Demo(endpoint, moderation)
	mux.Handle("GET /demo", d)
	mux.Handle("GET /demo/", d)
}

// RegisterWidget mounts the reviews widget a shop embeds (widget.js, the
// api.js it imports, widget.css) under /widget/ on mux.
func RegisterWidget(mux *http.ServeMux) {
	mux.Handle("GET /widget/", Widget())
}

// Widget serves the reviews widget's files under "/widget/". They are public
// and static, and a shop's page on another origin loads widget.js as a
// module script, which browsers fetch with CORS: every response allows any
// origin (no credentials). What the widget may then ask of /graphql is up to
// -cors-origins.
func Widget() http.Handler {
	assets := newAssets("widget", "/widget/")
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Cross-Origin-Resource-Policy", "cross-origin")
		assets.ServeHTTP(w, r)
	}))
}

var graphiqlPage = template.Must(template.ParseFS(files, "graphiql.html"))

// GraphiQL serves GraphiQL for the GraphQL endpoint at endpoint: the page at
// "/" and its assets under "/graphiql/". Other paths are 404.
func GraphiQL(endpoint string) http.Handler {
	// html/template writes the map as JSON into the data block.
	cfg := map[string]string{"endpoint": endpoint, "query": DefaultQuery, "headers": DefaultHeaders}
	var page bytes.Buffer
	if err := graphiqlPage.Execute(&page, map[string]any{"Config": cfg}); err != nil {
		panic(err)
	}
	assets := newAssets("dist/graphiql", "/graphiql/")
	html := newFile(page.Bytes(), "text/html; charset=utf-8")
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			html.serve(w, r)
			return
		}
		assets.ServeHTTP(w, r)
	}))
}

// Demo serves the product-page demo for the GraphQL endpoint at endpoint: the
// page at "/demo" (and "/demo/") and its script and style under "/demo/".
// With moderation "pre" or "post" the page shows its moderator view.
func Demo(endpoint, moderation string) http.Handler {
	raw, err := files.ReadFile("demo/index.html")
	if err != nil {
		panic(err)
	}
	t := template.Must(template.New("demo").Parse(string(raw)))
	var page bytes.Buffer
	if err := t.Execute(&page, map[string]string{"Endpoint": endpoint, "Moderation": moderation}); err != nil {
		panic(err)
	}
	html := newFile(page.Bytes(), "text/html; charset=utf-8")
	assets := newAssets("demo", "/demo/")
	return secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/demo" || r.URL.Path == "/demo/" {
			html.serve(w, r)
			return
		}
		if path.Base(r.URL.Path) == "index.html" {
			http.NotFound(w, r)
			return
		}
		assets.ServeHTTP(w, r)
	}))
}

func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", CSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// file is one response body, kept gzipped when the stored asset is (build.sh
// stores the big GraphiQL bundles as .gz only).
type file struct {
	body        []byte
	gzipped     bool
	contentType string
	etag        string
}

func newFile(body []byte, contentType string) *file {
	sum := sha256.Sum256(body)
	return &file{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

func (f *file) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	h.Add("Vary", "Accept-Encoding")
	if !f.gzipped {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
		return
	}
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
		return
	}
	// The unzipped variant is a different representation: its own ETag.
	etag := strings.TrimSuffix(f.etag, `"`) + `-identity"`
	h.Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(f.body))
	if err != nil {
		http.Error(w, "corrupt asset", http.StatusInternalServerError)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = io.Copy(w, zr)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// assets serves the files of one embedded directory under a URL prefix.
type assets map[string]*file

func newAssets(dir, prefix string) assets {
	a := assets{}
	err := fs.WalkDir(files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, dir+"/")
		gz := strings.HasSuffix(name, ".gz")
		name = strings.TrimSuffix(name, ".gz")
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "application/octet-stream"
		}
		f := newFile(body, ct)
		f.gzipped = gz
		a[prefix+name] = f
		return nil
	})
	if err != nil {
		panic(err)
	}
	return a
}

func (a assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := a[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	f.serve(w, r)
}

// Paths lists the URL paths of every embedded asset (for tests).
func (a assets) paths() []string {
	out := make([]string, 0, len(a))
	for p := range a {
		out = append(out, p)
	}
	return out
}
