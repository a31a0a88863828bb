package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// scenario is one query run again and again, with what its runs measured.
type scenario struct {
	name    string
	query   string
	vars    map[string]any
	results []time.Duration
	items   []float64
	calls   []float64
	rcu     []float64
	errors  int
}

// run runs every scenario against the gateway and prints the table.
func run(args []string, out io.Writer) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	c := &client{url: o.endpoint, http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.conc * 2, Proxy: nil}}}
	ctx := context.Background()
	if o.product == "" {
		if o.product, err = c.topProduct(ctx); err != nil {
			return err
		}
	}
	scenarios, err := c.scenarios(ctx, o)
	if err != nil {
		return err
	}
	c.runAll(ctx, o, scenarios, out)
	return nil
}

// options are loadgen's flags.
type options struct {
	endpoint    string
	product     string
	duration    time.Duration
	maxRequests int
	conc        int
	depth       int
	ratings     []int
}

// parseOptions parses the flags, refusing an endpoint off this machine.
func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.StringVar(&o.endpoint, "url", "http://127.0.0.1:8080/graphql", "GraphQL endpoint (loopback only)")
	fs.StringVar(&o.product, "product", "", "product id (default: the product with the most comments on the leaderboard)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long each scenario runs")
	fs.IntVar(&o.maxRequests, "requests", 100000, "most requests per scenario")
	fs.IntVar(&o.conc, "concurrency", 4, "concurrent clients")
	fs.IntVar(&o.depth, "depth", 500, "page number of the deep-page scenarios (capped by the data)")
	ratings := fs.String("ratings", "[1,3,5]", "ratings of the merged scenarios, as a JSON list")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	u, err := url.Parse(o.endpoint)
	if err != nil {
		return o, err
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return o, fmt.Errorf("-url %s: loadgen only targets loopback addresses", o.endpoint)
	}
	if err := json.Unmarshal([]byte(*ratings), &o.ratings); err != nil {
		return o, fmt.Errorf("-ratings: %v", err)
	}
	return o, nil
}

// topProduct returns the product with the most comments.
func (c *client) topProduct(ctx context.Context) (string, error) {
	var top struct {
		TopProducts []struct{ Product struct{ ID string } } `json:"topProducts"`
	}
	if _, err := c.do(ctx, `{ topProducts(first: 1) { product { id } } }`, nil, &top); err != nil {
		return "", err
	}
	if len(top.TopProducts) == 0 {
		return "", errors.New("no products on the leaderboard; load data first")
	}
	return top.TopProducts[0].Product.ID, nil
}

// pageQuery is a page of a product's comments, of some ratings, after a cursor.
const pageQuery = `query Page($p: ID!, $r: [Int!], $after: String) { product(id: $p) {
		comments(ratings: $r, first: 20, after: $after) { totalCount pageInfo { hasNextPage endCursor }
			edges { cursor node { id rating language author title body createdAt } } } } }`

// scenarios returns the scenarios on o.product, walking to its deep pages.
func (c *client) scenarios(ctx context.Context, o options) ([]*scenario, error) {
	page, p, rs := pageQuery, o.product, o.ratings
	deepSingle, nSingle, err := c.cursorAt(ctx, page, p, nil, o.depth)
	if err != nil {
		return nil, err
	}
	deepMerged, nMerged, err := c.cursorAt(ctx, page, p, rs, o.depth)
	if err != nil {
		return nil, err
	}
	return []*scenario{
		{name: "first page", query: page, vars: map[string]any{"p": p}},
		{name: fmt.Sprintf("deep page (page %d)", nSingle), query: page, vars: map[string]any{"p": p, "after": deepSingle}},
		{name: fmt.Sprintf("merged page %v", rs), query: page, vars: map[string]any{"p": p, "r": rs}},
		{name: fmt.Sprintf("merged deep page (page %d)", nMerged), query: page, vars: map[string]any{"p": p, "r": rs, "after": deepMerged}},
		{name: "product page", query: `query ProductPage($p: ID!) { product(id: $p) {
			stats { total averageRating ratings { rating count } } languages { language total }
			comments(first: 20) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id rating author title body createdAt } } } } }`,
			vars: map[string]any{"p": p}},
		// The same deep merged page without totalCount: its cursor's
		// position sizes the reads, so no stats item is read.
		{name: fmt.Sprintf("merged page %d, no totalCount", nMerged), query: strings.Replace(page, "totalCount ", "", 1),
			vars: map[string]any{"p": p, "r": rs, "after": deepMerged}},
	}, nil
}

// runAll runs the scenarios one after another, printing a row each, then
// the median ratios.
func (c *client) runAll(ctx context.Context, o options, scenarios []*scenario, out io.Writer) {
	fmt.Fprintf(out, "endpoint %s, product %s, %d clients, %s per scenario\n\n", o.endpoint, o.product, o.conc, o.duration)
	fmt.Fprintf(out, "%-32s %8s %8s %9s %9s %11s %11s %7s %6s\n", "scenario", "requests", "req/s", "p50", "p99", "items read", "store calls", "RCU", "errors")
	for _, sc := range scenarios {
		start := time.Now()
		c.load(ctx, sc, o.conc, o.duration, o.maxRequests)
		el := time.Since(start)
		fmt.Fprintf(out, "%-32s %8d %8.0f %9s %9s %11.1f %11.2f %7.2f %6d\n", sc.name, len(sc.results), float64(len(sc.results))/el.Seconds(),
			pct(sc.results, 50), pct(sc.results, 99), mean(sc.items), mean(sc.calls), mean(sc.rcu), sc.errors)
	}
	ratio := func(a, b *scenario) float64 { return float64(pct(a.results, 50)) / float64(pct(b.results, 50)) }
	fmt.Fprintf(out, "\nmedian ratios: deep/first %.2f, merged deep/merged first %.2f, merged/single %.2f\n",
		ratio(scenarios[1], scenarios[0]), ratio(scenarios[3], scenarios[2]), ratio(scenarios[2], scenarios[0]))
}

type client struct {
	url  string
	http *http.Client
}

// cost is a response's extensions.cost.
type cost struct {
	ItemsRead         float64
	Requests          float64
	ReadCapacityUnits float64
}

// do runs one query and decodes its data into v; it returns its cost.
func (c *client) do(ctx context.Context, query string, vars map[string]any, v any) (cost, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return cost{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return cost{}, err
	}
	defer resp.Body.Close()
	var r struct {
		Data       json.RawMessage
		Errors     []struct{ Message string }
		Extensions struct{ Cost cost }
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return cost{}, fmt.Errorf("HTTP %d: %v", resp.StatusCode, err)
	}
	if len(r.Errors) > 0 {
		return cost{}, fmt.Errorf("HTTP %d: %s", resp.StatusCode, r.Errors[0].Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			return cost{}, err
		}
	}
	return r.Extensions.Cost, nil
}

// cursorAt walks to page n (or the last full page) and returns the cursor
// that starts it, with the page number reached.
func (c *client) cursorAt(ctx context.Context, q, pid string, rs []int, n int) (string, int, error) {
	var after any
	for p := 1; p < n; p++ {
		var d struct {
			Product struct {
				Comments struct {
					PageInfo struct {
						HasNextPage bool
						EndCursor   string
					}
				}
			}
		}
		vars := map[string]any{"p": pid, "after": after}
		if rs != nil {
			vars["r"] = rs
		}
		if _, err := c.do(ctx, q, vars, &d); err != nil {
			return "", 0, err
		}
		if !d.Product.Comments.PageInfo.HasNextPage {
			break
		}
		after = d.Product.Comments.PageInfo.EndCursor
	}
	if after == nil {
		return "", 1, errors.New("the product has a single page: load more data for the deep-page scenarios")
	}
	return after.(string), n, nil
}

func (c *client) load(ctx context.Context, sc *scenario, conc int, d time.Duration, maxReq int) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				if len(sc.results)+sc.errors >= maxReq {
					mu.Unlock()
					return
				}
				mu.Unlock()
				t0 := time.Now()
				cst, err := c.do(ctx, sc.query, sc.vars, nil)
				el := time.Since(t0)
				mu.Lock()
				switch {
				case ctx.Err() != nil:
				case err != nil:
					sc.errors++
				default:
					sc.results = append(sc.results, el)
					sc.items = append(sc.items, cst.ItemsRead)
					sc.calls = append(sc.calls, cst.Requests)
					sc.rcu = append(sc.rcu, cst.ReadCapacityUnits)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Microsecond)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	if len(xs) == 0 {
		return 0
	}
	return s / float64(len(xs))
}
