package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// options are the command line of one comparison.
type options struct {
	product, language string
	ratings           []int
	depth, walk       int
	duration          time.Duration
	concurrency       int
	rounds            int
	warmup            time.Duration
	only              string // run only the scenarios whose name starts with it
	wrk               string // drive the load with this wrk binary instead of the Go clients
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sidebyside", flag.ContinueOnError)
	gwURL := fs.String("gateway", "http://127.0.0.1:18101/graphql", "the gateway's GraphQL endpoint (loopback only)")
	pgURL := fs.String("postgraphile", "http://127.0.0.1:18105/graphql", "PostGraphile's GraphQL endpoint (loopback only)")
	gwPids := fs.String("gateway-pids", "", "comma-separated roots of the gateway's process trees (CPU accounting)")
	pgPids := fs.String("postgraphile-pids", "", "comma-separated roots of PostGraphile's and PostgreSQL's process trees")
	pgVersion := fs.Int("postgraphile-version", 5, "PostGraphile's major version, 4 or 5 (how it spells the page query)")
	var o options
	fs.StringVar(&o.product, "product", "", "product id (default: of the gateway's 100 leading products, the one with the fewest filtered comments that has the deep page and the walk)")
	fs.StringVar(&o.language, "language", "en", "language of the filtered scenarios")
	ratings := fs.String("ratings", "[2,3,5]", "ratings of the filtered scenarios, as a JSON list")
	fs.IntVar(&o.depth, "depth", 10000, "comments before the deep page (a multiple of 20; capped by the data)")
	fs.IntVar(&o.walk, "walk", 600, "pages of the walk scenario (capped by the data)")
	fs.DurationVar(&o.duration, "duration", 15*time.Second, "how long each scenario runs on each system in each round")
	fs.IntVar(&o.concurrency, "concurrency", 8, "concurrent clients")
	fs.IntVar(&o.rounds, "rounds", 3, "alternating rounds")
	fs.DurationVar(&o.warmup, "warmup", 3*time.Second, "unreported run of each scenario on each system before the rounds")
	fs.StringVar(&o.only, "only", "", "run only the scenarios whose name starts with this (e.g. \"filtered page 1\", unfiltered, \"filtered,\", walk)")
	fs.StringVar(&o.wrk, "wrk", "", "path of wrk: drive the load with wrk and replay.lua instead of the Go clients (replies checked by their bytes only)")
	total := fs.Bool("total", true, "select totalCount on every page (false: leave it out on both systems)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(*ratings), &o.ratings); err != nil {
		return fmt.Errorf("-ratings: %v", err)
	}
	gw, err := newSystem("gateway", *gwURL, *gwPids, gatewayDialect, o.concurrency)
	if err != nil {
		return err
	}
	pg, err := newPostGraphile(*pgVersion, *pgURL, *pgPids, o.concurrency)
	if err != nil {
		return err
	}
	gw.noTotal, pg.noTotal = !*total, !*total
	ctx := context.Background()
	if o.product == "" {
		f := &filter{language: o.language, ratings: o.ratings}
		if o.product, err = gw.pickProduct(ctx, f, max(o.depth+20, 20*o.walk)); err != nil {
			return err
		}
	}
	scs, err := prepare(ctx, out, o, gw, pg)
	if err != nil {
		return err
	}
	scs = slices.DeleteFunc(scs, func(sc *scenario) bool { return !strings.HasPrefix(sc.name, o.only) })
	if len(scs) == 0 {
		return fmt.Errorf("-only %q: no such scenario", o.only)
	}
	if o.wrk != "" {
		fmt.Fprintf(out, "load driven by %s (2 threads, %d connections)\n", wrkVersion(o.wrk), o.concurrency)
	}
	warmUp(ctx, o, scs, []*system{gw, pg})
	fmt.Fprintf(out, "load average before the load: %s\n", loadavg())
	results := measure(ctx, out, o, scs, []*system{gw, pg})
	fmt.Fprintf(out, "load average after the load: %s\n\n", loadavg())
	summarize(out, scs, results, gw.name, pg.name)
	return nil
}

func newSystem(name, endpoint, pids string, d dialect, conc int) (*system, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("-%s: %v", name, err)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("-%s %s: only loopback addresses are targeted", name, endpoint)
	}
	s := &system{name: name, dialect: d, client: newClient(endpoint, conc)}
	for _, f := range strings.FieldsFunc(pids, func(r rune) bool { return r == ',' }) {
		pid, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-%s-pids: %v", name, err)
		}
		s.pids = append(s.pids, pid)
	}
	return s, nil
}

// newPostGraphile is the PostGraphile system of that major version, named
// after it (postgraphile5) in the tables.
func newPostGraphile(version int, endpoint, pids string, conc int) (*system, error) {
	d, ok := postgraphileDialects[version]
	if !ok {
		return nil, fmt.Errorf("-postgraphile-version %d: want 4 or 5", version)
	}
	s, err := newSystem("postgraphile", endpoint, pids, d, conc)
	if err != nil {
		return nil, err
	}
	s.name = fmt.Sprintf("postgraphile%d", version)
	return s, nil
}

// loadavg is the first three fields of /proc/loadavg.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
