package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// replayLua is the wrk script of -wrk: it sends the exchanges' request
// bodies round robin and counts the replies that are not a 200 byte-identical
// to one of the walk's recorded replies.
//
//go:embed replay.lua
var replayLua []byte

// wrkLoad runs one scenario on one system with wrk (o.wrk) instead of the Go
// clients: 2 threads, o.concurrency connections, o.duration rounded to whole
// seconds. Replies are checked by their bytes only (wrk does not decode
// JSON): a reply that is not a 200 identical to one of the scenario's
// recorded replies counts as an error. clientCPU is wrk's own CPU time.
func wrkLoad(ctx context.Context, o options, sc *scenario, s *system) result {
	var r result
	dir, err := os.MkdirTemp("", "sidebyside-wrk")
	if err != nil {
		return result{errors: 1, firstError: err.Error(), seconds: 1}
	}
	defer os.RemoveAll(dir)
	pages := sc.pages[s.name]
	var bodies, replies [][]byte
	for _, x := range pages {
		bodies, replies = append(bodies, x.body), append(replies, x.reply)
	}
	script, bodiesFile, repliesFile := filepath.Join(dir, "replay.lua"), filepath.Join(dir, "bodies"), filepath.Join(dir, "replies")
	for _, f := range []struct {
		path string
		data []byte
	}{{script, replayLua}, {bodiesFile, framed(bodies)}, {repliesFile, framed(replies)}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return result{errors: 1, firstError: err.Error(), seconds: 1}
		}
	}
	secs := max(1, int(o.duration.Round(time.Second).Seconds()))
	cmd := exec.CommandContext(ctx, o.wrk, "-t", strconv.Itoa(min(2, o.concurrency)), "-c", strconv.Itoa(o.concurrency),
		"-d", fmt.Sprintf("%ds", secs), "--timeout", "60s", "-s", script, s.client.url, "--", bodiesFile, repliesFile)
	cpu0 := treeCPU(s.pids)
	out, err := cmd.Output()
	r.cpuSeconds = treeCPU(s.pids) - cpu0
	if cmd.ProcessState != nil {
		r.clientCPU = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	if err != nil {
		return result{errors: 1, firstError: fmt.Sprintf("%s: %v: %s", o.wrk, err, out), seconds: float64(secs)}
	}
	return parseWrk(out, r)
}

// framed is items for replay.lua: each one's length in bytes on a line,
// then its bytes.
func framed(items [][]byte) []byte {
	var b bytes.Buffer
	for _, it := range items {
		fmt.Fprintf(&b, "%d\n", len(it))
		b.Write(it)
	}
	return b.Bytes()
}

// wrkLine is the line replay.lua's done() prints.
var wrkLine = regexp.MustCompile(`(?m)^sidebyside: (\d+) requests, (\d+) mismatched, (\d+) errors, (\d+) us$`)

// parseWrk fills r's counts from wrk's output.
func parseWrk(out []byte, r result) result {
	m := wrkLine.FindSubmatch(out)
	if m == nil {
		r.errors, r.firstError = 1, fmt.Sprintf("no summary in wrk's output: %.300s", out)
		r.seconds = 1
		return r
	}
	n := func(i int) int { v, _ := strconv.Atoi(string(m[i])); return v }
	requests, mismatched, errs, us := n(1), n(2), n(3), n(4)
	r.ok, r.errors, r.seconds = requests-mismatched, mismatched+errs, float64(us)/1e6
	if r.errors > 0 {
		r.firstError = fmt.Sprintf("wrk: %d replies not identical to the walk's, %d socket or HTTP errors", mismatched, errs)
	}
	return r
}

// wrkVersion is the first line wrk prints about itself.
func wrkVersion(path string) string {
	out, _ := exec.Command(path, "-v").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}
