#!/usr/bin/env bash
# Request-path comparison of gateway binaries on one data set, alternating
# them so that the machine's other load hits each alike:
#
#   ./scripts/bench-compare.sh DURATION ROUNDS NAME=BINARY...
#
# Seeds one bbolt file (3 products, 60,000 comments) with the first binary,
# then for each round serves it with each binary in turn on 127.0.0.1 and
# runs cmd/loadgen (4 clients, ratings [2,3,5], DURATION per scenario)
# against it; prints loadgen's table and the server's CPU time per request
# (utime+stime from /proc/PID/stat over the loadgen run, all scenarios).
# Everything it starts is stopped by pid. Results: docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
duration=${1:?DURATION}; rounds=${2:?ROUNDS}; shift 2
work=$(mktemp -d)
pid=
cleanup() { [[ -n $pid ]] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/loadgen" ./cmd/loadgen
first=${1#*=}
"$first" seed -store "bolt:$work/bench.db" -products 3 -comments 60000 >/dev/null
ticks=$(getconf CLK_TCK)
for round in $(seq "$rounds"); do
	for nb in "$@"; do
		name=${nb%%=*} bin=${nb#*=}
		"$bin" serve -store "bolt:$work/bench.db" -addr 127.0.0.1:18095 -demo=false -open-mutations >"$work/out" 2>"$work/err" &
		pid=$!
		for _ in $(seq 100); do grep -q listening "$work/out" 2>/dev/null && break; sleep 0.1; done
		cpu0=$(awk '{print $14+$15}' "/proc/$pid/stat")
		"$work/loadgen" -url http://127.0.0.1:18095/graphql -duration "$duration" -ratings '[2,3,5]' >"$work/lg"
		cpu1=$(awk '{print $14+$15}' "/proc/$pid/stat")
		kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
		reqs=$(awk '/^(first|deep|merged|product)/ {n += $(NF-7)} END {print n}' "$work/lg")
		echo "== round $round: $name ($bin)"
		cat "$work/lg"
		awk -v c=$((cpu1 - cpu0)) -v t="$ticks" -v n="$reqs" 'BEGIN {printf "server CPU: %.3f ms/request over %d requests\n\n", 1000 * c / t / n, n}'
	done
done
