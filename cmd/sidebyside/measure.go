package main

import (
	"bytes"
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
	slow       int // replies not byte-identical to the walk's, decoded and checked
	seconds    float64
	cpuSeconds float64 // the system's process trees
	clientCPU  float64 // the load generator's own process (or wrk's)
	firstError string
}

func (r result) reqPerSec() float64      { return float64(r.ok) / r.seconds }
func (r result) cpuMsPerReq() float64    { return perReq(r.cpuSeconds, r.ok) }
func (r result) clientMsPerReq() float64 { return perReq(r.clientCPU, r.ok) }

// perReq is CPU seconds as milliseconds per answered request.
func perReq(cpuSeconds float64, ok int) float64 {
	if ok == 0 {
		return 0
	}
	return 1000 * cpuSeconds / float64(ok)
}

// results[scenario][system] holds one result per round.
type results map[string]map[string][]result

// measure runs every scenario on both systems in each round, the systems'
// order alternating from round to round, and prints each run.
func measure(ctx context.Context, out io.Writer, o options, scs []*scenario, systems []*system) results {
	res := results{}
	fmt.Fprintf(out, "\n%-5s %-40s %-13s %9s %7s %7s %8s %11s %14s\n",
		"round", "scenario", "system", "requests", "errors", "slow", "req/s", "CPU ms/req", "client ms/req")
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
				fmt.Fprintf(out, "%-5d %-40s %-13s %9d %7d %7d %8.0f %11.3f %14.3f\n",
					round, sc.name, s.name, r.ok, r.errors, r.slow, r.reqPerSec(), r.cpuMsPerReq(), r.clientMsPerReq())
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
// o.duration, each replaying the scenario's requests round robin and
// checking every reply (exchange.check); with -wrk, wrk does (wrkLoad).
func load(ctx context.Context, o options, sc *scenario, s *system) result {
	if o.wrk != "" {
		return wrkLoad(ctx, o, sc, s)
	}
	pages := sc.pages[s.name]
	var next atomic.Int64
	var mu sync.Mutex
	var r result
	cpu0, self0 := treeCPU(s.pids), selfCPU()
	start := time.Now()
	deadline := start.Add(o.duration)
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(requestTimeout))
	defer cancel()
	var wg sync.WaitGroup
	for range o.concurrency {
		wg.Go(func() {
			var w result // this client's counts, added to r at the end
			k, err := s.client.caller(ctx)
			if err != nil {
				w.errors, w.firstError = 1, err.Error()
			}
			for err == nil && time.Now().Before(deadline) {
				i := int(next.Add(1)-1) % len(pages)
				if err := replay(k, pages[i], &w); err != nil {
					w.errors++
					if w.firstError == "" {
						w.firstError = fmt.Sprintf("%s: page %d of %s: %v", s.name, i+1, sc.name, err)
					}
				}
			}
			mu.Lock()
			r.ok, r.errors, r.slow = r.ok+w.ok, r.errors+w.errors, r.slow+w.slow
			if r.firstError == "" {
				r.firstError = w.firstError
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	r.seconds = time.Since(start).Seconds()
	r.clientCPU = selfCPU() - self0
	r.cpuSeconds = treeCPU(s.pids) - cpu0
	return r
}

// replay sends one exchange's request and counts its reply in w.
func replay(k *caller, x *exchange, w *result) error {
	status, reply, err := k.post(x.body)
	if err != nil {
		return err
	}
	slow, err := x.check(status, reply)
	if slow {
		w.slow++
	}
	if err != nil {
		return err
	}
	w.ok++
	return nil
}

// summarize prints the medians over the rounds and the ratios, with the
// load generator's own CPU per request on each system (what the client
// costs; with a client this costly, the cheaper server's req/s is capped).
func summarize(out io.Writer, scs []*scenario, res results, gwName, pgName string) {
	fmt.Fprintf(out, "medians over the rounds:\n%-40s %12s %12s %7s %13s %13s %11s %13s %6s %6s\n",
		"scenario", "gateway req/s", "PG'ile req/s", "ratio", "gw CPU ms/req", "PG CPU ms/req", "CPU ratio",
		"client ms/req", "errors", "slow")
	for _, sc := range scs {
		gw, pg := res[sc.name][gwName], res[sc.name][pgName]
		gwRate, pgRate := medianOf(gw, result.reqPerSec), medianOf(pg, result.reqPerSec)
		gwCPU, pgCPU := medianOf(gw, result.cpuMsPerReq), medianOf(pg, result.cpuMsPerReq)
		client := fmt.Sprintf("%.3f/%.3f", medianOf(gw, result.clientMsPerReq), medianOf(pg, result.clientMsPerReq))
		errs, slow := 0, 0
		for _, r := range append(slices.Clone(gw), pg...) {
			errs, slow = errs+r.errors, slow+r.slow
		}
		fmt.Fprintf(out, "%-40s %12.0f %12.0f %6.2f× %13.3f %13.3f %10.2f× %13s %6d %6d\n",
			sc.name, gwRate, pgRate, gwRate/pgRate, gwCPU, pgCPU, pgCPU/gwCPU, client, errs, slow)
	}
	fmt.Fprintf(out, "(PG'ile: %s; client ms/req: the load generator's own CPU per request, on the gateway/on PostGraphile)\n", pgName)
	fmt.Fprintf(out, "\nratios round by round (the two systems' runs of one round are minutes apart at most):\n%-40s %-28s %s\n",
		"scenario", "req/s ratio: median (range)", "CPU ratio: median (range)")
	for _, sc := range scs {
		gw, pg := res[sc.name][gwName], res[sc.name][pgName]
		rate := roundRatios(pg, gw, result.reqPerSec)
		cpu := roundRatios(gw, pg, result.cpuMsPerReq)
		fmt.Fprintf(out, "%-40s %-28s %s\n", sc.name, spread(rate), spread(cpu))
	}
}

// roundRatios are, round by round, num's figure over den's: the gateway's
// req/s over the peer's, or the peer's CPU a request over the gateway's
// (so that both read "times better"). A round either system did not
// answer in is left out.
func roundRatios(den, num []result, f func(result) float64) []float64 {
	var rs []float64
	for i := range min(len(den), len(num)) {
		if d, n := f(den[i]), f(num[i]); d > 0 && n > 0 {
			rs = append(rs, n/d)
		}
	}
	return rs
}

// spread writes ratios as their median and range.
func spread(rs []float64) string {
	if len(rs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f×)", median(rs), slices.Min(rs), slices.Max(rs))
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
		if t, ok := readStat("/proc/" + e.Name() + "/stat"); ok {
			procs[pid] = proc{t.ppid, t.own + t.children}
		}
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

// selfCPU is the CPU time, in seconds, of the load generator's own process
// (utime + stime of /proc/self: every thread, the GC's included).
func selfCPU() float64 {
	t, _ := readStat("/proc/self/stat")
	return t.own / clockTicks
}

// statTimes are the fields of /proc/PID/stat the CPU accounting reads.
type statTimes struct {
	ppid     int
	own      float64 // utime + stime, in clock ticks
	children float64 // cutime + cstime: the children the process has reaped
}

// readStat reads one /proc/PID/stat; ok is false when the process is gone.
func readStat(path string) (t statTimes, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return t, false
	}
	// The fields after the command, which is in parentheses: state (3),
	// ppid (4), …, utime (14), stime (15), cutime (16), cstime (17).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 15 {
		return t, false
	}
	t.ppid, _ = strconv.Atoi(f[1])
	ticks := func(i int) float64 { v, _ := strconv.ParseFloat(f[i], 64); return v }
	t.own, t.children = ticks(11)+ticks(12), ticks(13)+ticks(14)
	return t, true
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100
