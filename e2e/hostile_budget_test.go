package e2e

// The budget harness of the hostile suite: an attack must be cheap to refuse.
// Each budgetCase is sent to a plain (non-race) build of the binary, as it is
// deployed, and must get the status and extensions.code it names while the
// server spends at most budgetCPU of CPU time on it (utime+stime of the
// process, from /proc/PID/stat), replies with at most budgetReply bytes, and
// grows its peak RSS (VmHWM, /proc/PID/status) by at most budgetRSS.
//
// Suites of attacks live next to what they attack (TestBudget… tests); each
// starts its own server with MustStartBudgetServer and calls runBudget.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The budgets of one refused (or bounded) request.
const (
	budgetCPU   = 100 * time.Millisecond
	budgetReply = 64 << 10
	budgetRSS   = 100 << 20
)

// budgetCase is one attack and what it may cost.
type budgetCase struct {
	hostileCase
	// send, when set, sends the attack itself (a stalled body, a huge
	// streamed one) instead of sendHostile.
	send func(ctx context.Context, client *http.Client, base string) (status int, body []byte, err error)
	// cpu and reply override budgetCPU and budgetReply (a bounded, accepted
	// request that really works may be allowed more; say why).
	cpu   time.Duration
	reply int
}

// MustStartBudgetServer starts the plain binary as MustStartServer starts the
// race-enabled one, with the production limits left at their defaults
// unless args set them.
func MustStartBudgetServer(tb testing.TB, args ...string) *Server {
	tb.Helper()
	argv := append([]string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-open-mutations"}, args...)
	return startServer(tb, MustPlainBinary(tb), argv, nil, func(s *Server) { s.Stop(tb) })
}

// runBudget sends every case to s, one at a time, and checks its answer
// (hostileResult) and its budgets.
func runBudget(t *testing.T, s *Server, cases []budgetCase) {
	t.Helper()
	client := &http.Client{Timeout: e2eRequestTimeout, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	pid := s.cmd.Process.Pid
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cpu0, rss0 := mustProcUsage(t, pid)
			ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
			defer cancel()
			send := c.send
			if send == nil {
				send = func(ctx context.Context, client *http.Client, base string) (int, []byte, error) {
					return sendHostile(ctx, client, base, c.hostileCase)
				}
			}
			status, body, err := send(ctx, client, s.URL)
			if err != nil {
				t.Fatalf("sending: %v", err)
			}
			cpu1, rss1 := mustProcUsage(t, pid)
			if err := hostileResult(c.hostileCase, status, body); err != nil {
				t.Error(err)
			}
			checkBudget(t, c, cpu1-cpu0, len(body), rss1-rss0)
			t.Logf("HTTP %d, %d bytes, %s CPU, peak RSS +%d KiB: %.120s", status, len(body), cpu1-cpu0, (rss1-rss0)>>10, bytes.TrimSpace(body))
		})
	}
}

func checkBudget(t *testing.T, c budgetCase, cpu time.Duration, reply int, rss int64) {
	t.Helper()
	maxCPU, maxReply := budgetCPU, budgetReply
	if c.cpu > 0 {
		maxCPU = c.cpu
	}
	if c.reply > 0 {
		maxReply = c.reply
	}
	if cpu > maxCPU {
		t.Errorf("the server spent %s of CPU on it; the budget is %s", cpu, maxCPU)
	}
	if reply > maxReply {
		t.Errorf("the reply has %d bytes; the budget is %d", reply, maxReply)
	}
	if rss > budgetRSS {
		t.Errorf("the server's peak RSS grew by %d MiB; the budget is %d MiB", rss>>20, budgetRSS>>20)
	}
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times
// (100 on every Linux platform Go supports).
const clockTicks = 100

// mustProcUsage returns the process's CPU time so far and its peak RSS.
func mustProcUsage(tb testing.TB, pid int) (time.Duration, int64) {
	tb.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14 and stime 15.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		tb.Fatalf("/proc/%d/stat: %q", pid, stat)
	}
	cpu := time.Duration(utime+stime) * time.Second / clockTicks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatalf("/proc/%d/status VmHWM: %q", pid, v)
			}
			return cpu, kb << 10
		}
	}
	tb.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0, 0
}

// TestBudgetShapeRefusalsAreCheap pins the harness on refusals that exist
// already: a too-deep operation and a body whose Content-Length is over the
// limit.
func TestBudgetShapeRefusalsAreCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	s := MustStartBudgetServer(t, "-store", "bolt:budget.db")
	runBudget(t, s, []budgetCase{
		{hostileCase: hostileCase{name: "depth 50", body: gql(deepSelection(50), nil), code: "DEPTH_LIMIT_EXCEEDED"}},
		{hostileCase: hostileCase{name: "2 MiB body", body: bytes.Repeat([]byte(" "), 2<<20), status: http.StatusRequestEntityTooLarge}},
	})
}
