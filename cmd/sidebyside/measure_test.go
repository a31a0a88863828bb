package main

import (
	"strings"
	"testing"
)

// TestSummarizeRoundRatios: besides the ratio of the medians, the summary
// gives each round's ratio, paired by round, as a median and a range, in
// "times better" for both req/s and CPU.
func TestSummarizeRoundRatios(t *testing.T) {
	run := func(ok int, cpu float64) result { return result{ok: ok, seconds: 1, cpuSeconds: cpu} }
	res := results{"page": {
		"gateway": {run(5000, 1.5), run(4000, 1.6), run(4500, 1.35)}, // 0.30, 0.40, 0.30 ms
		"peer":    {run(1000, 1.5), run(1000, 1.6), run(900, 1.8)},   // 1.50, 1.60, 2.00 ms
	}}
	var out strings.Builder
	summarize(&out, []*scenario{{name: "page"}}, res, "gateway", "peer")
	// req/s: 5, 4, 5; CPU: 5, 4, 6.67
	want := "page                                     5.00× (4.00–5.00×)           5.00× (4.00–6.67×)\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("summary ends\n%q\nwant\n%q", out.String()[max(0, out.Len()-len(want)-20):], want)
	}
}
