package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// result is one scenario's run on one system in one round.
type result struct {
	ok, errors int
	seconds    float64
	cpuSeconds float64
	firstError string
}

func (r result) reqPerSec() float64 { return float64(r.ok) / r.seconds }
func (r result) cpuMsPerReq() float64 {
	if r.ok == 0 {
		return 0
	}
	return 1000 * r.cpuSeconds / float64(r.ok)
}

// results[scenario][system] holds one result per round.
type results map[string]map[string][]result

// measure runs every scenario on both systems in each round, the systems'
// order alternating from round to round, and prints each run.
func measure(ctx context.Context, out io.Writer, o options, scs []*scenario, systems []*system) results {
	res := results{}
	fmt.Fprintf(out, "\n%-5s %-40s %-12s %9s %7s %8s %11s\n", "round", "scenario", "system", "requests", "errors", "req/s", "CPU ms/req")
	for round := 1; round <= o.rounds; round++ {
		order := slices.Clone(systems)
		if round%2 == 0 {
			slices.Reverse(order)
		}
		for _, sc := range scs {
			if res[sc.name] == nil {
				res[sc.name] = map[string][]result{}
			}
			for _, s := range order {
				r := load(ctx, o, sc, s)
				res[sc.name][s.name] = append(res[sc.name][s.name], r)
				fmt.Fprintf(out, "%-5d %-40s %-12s %9d %7d %8.0f %11.3f\n", round, sc.name, s.name, r.ok, r.errors, r.reqPerSec(), r.cpuMsPerReq())
				if r.firstError != "" {
					fmt.Fprintf(out, "      first error: %s\n", r.firstError)
				}
			}
		}
	}
	return res
}

// warmUp runs every scenario on every system for o.warmup, unreported (the
// JIT of node, PostgreSQL's and the gateway's caches).
func warmUp(ctx context.Context, o options, scs []*scenario, systems []*system) {
	w := o
	w.duration = o.warmup
	for _, sc := range scs {
		for _, s := range systems {
			load(ctx, w, sc, s)
		}
	}
}

// load runs one scenario on one system with o.concurrency clients for
// o.duration; a response whose ids differ from the expected page's is an
// error.
func load(ctx context.Context, o options, sc *scenario, s *system) result {
	var next, ok, bad atomic.Int64
	var firstErr sync.Once
	var r result
	fail := func(err error) {
		bad.Add(1)
		firstErr.Do(func() { r.firstError = err.Error() })
	}
	cpu0 := treeCPU(s.pids)
	start := time.Now()
	deadline := start.Add(o.duration)
	var wg sync.WaitGroup
	for range o.concurrency {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				i := int(next.Add(1)-1) % len(sc.want)
				c, err := s.page(ctx, o.product, sc.filter, sc.after[s.name][i])
				switch {
				case err != nil:
					fail(err)
				case !slices.Equal(c.ids(), sc.want[i]):
					fail(fmt.Errorf("page %d of %s: ids %v, want %v", i+1, sc.name, c.ids(), sc.want[i]))
				default:
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	r.seconds = time.Since(start).Seconds()
	r.cpuSeconds = treeCPU(s.pids) - cpu0
	r.ok, r.errors = int(ok.Load()), int(bad.Load())
	return r
}

// summarize prints the medians over the rounds and the ratios.
func summarize(out io.Writer, scs []*scenario, res results) {
	fmt.Fprintf(out, "medians over the rounds:\n%-40s %12s %12s %7s %13s %13s %11s %6s\n",
		"scenario", "gateway req/s", "PG'ile req/s", "ratio", "gw CPU ms/req", "PG CPU ms/req", "CPU ratio", "errors")
	for _, sc := range scs {
		gw, pg := res[sc.name]["gateway"], res[sc.name]["postgraphile"]
		gwRate, pgRate := medianOf(gw, result.reqPerSec), medianOf(pg, result.reqPerSec)
		gwCPU, pgCPU := medianOf(gw, result.cpuMsPerReq), medianOf(pg, result.cpuMsPerReq)
		errs := 0
		for _, r := range append(slices.Clone(gw), pg...) {
			errs += r.errors
		}
		fmt.Fprintf(out, "%-40s %12.0f %12.0f %6.2f× %13.3f %13.3f %10.2f× %6d\n",
			sc.name, gwRate, pgRate, gwRate/pgRate, gwCPU, pgCPU, pgCPU/gwCPU, errs)
	}
}

func medianOf(rs []result, f func(result) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return median(xs)
}

// treeCPU is the CPU time, in seconds, of the process trees rooted at roots:
// utime + stime of every live process in them, plus cutime + cstime (the
// children each has reaped).
func treeCPU(roots []int) float64 {
	if len(roots) == 0 {
		return 0
	}
	type proc struct {
		ppid  int
		ticks float64
	}
	procs := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command, which is in parentheses: state (3),
		// ppid (4), …, utime (14), stime (15), cutime (16), cstime (17).
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 15 {
			continue
		}
		p := proc{}
		p.ppid, _ = strconv.Atoi(f[1])
		for _, i := range []int{11, 12, 13, 14} {
			t, _ := strconv.ParseFloat(f[i], 64)
			p.ticks += t
		}
		procs[pid] = p
	}
	inTree := func(pid int) bool {
		for ; pid > 1; pid = procs[pid].ppid {
			if slices.Contains(roots, pid) {
				return true
			}
		}
		return false
	}
	var ticks float64
	for pid, p := range procs {
		if inTree(pid) {
			ticks += p.ticks
		}
	}
	return ticks / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100
