#!/usr/bin/env bash
# The load benchmark behind docs/BENCHMARKS.md: ./scripts/bench.sh [DURATION]
#
# Builds the gateway and cmd/loadgen, seeds one data set (3 products, 60,000
# comments: deep enough for page 500 of a 3-rating filter) into the embedded
# store and into DynamoDB Local, serves each on 127.0.0.1 in turn and runs
# loadgen against it for DURATION per scenario (default 10s). As root with
# unshare(1) it all runs in a private network namespace with only loopback
# (DynamoDB Local cannot choose its listen address). Everything it starts is
# stopped by pid.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
duration=${1:-10s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ ${BENCH_IN_NETNS:-} != 1 ]]; then
	go build -o "$work/gw" . && go build -o "$work/loadgen" ./cmd/loadgen
	dir=$(scripts/fetch-dynamodb-local.sh)
	if [[ $(id -u) == 0 ]] && command -v unshare >/dev/null; then
		exec unshare -n env BENCH_IN_NETNS=1 BENCH_BIN="$work" DYNAMODB_LOCAL_DIR="$dir" "$0" "$duration"
	fi
	export BENCH_BIN=$work DYNAMODB_LOCAL_DIR=$dir
else
	ip link set lo up
fi
bin=$BENCH_BIN
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap 'cleanup; rm -rf "$work"' EXIT

# serve STORE PORT: starts the gateway and waits for its address line.
serve() {
	"$bin/gw" serve -store "$1" -addr "127.0.0.1:$2" -demo=false -open-mutations >"$work/serve-$2.out" 2>"$work/serve-$2.err" &
	pids+=($!)
	for _ in $(seq 100); do grep -q listening "$work/serve-$2.out" 2>/dev/null && return; sleep 0.1; done
	cat "$work/serve-$2.err" >&2; exit 1
}

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3)"
echo "== embedded store (bbolt)"
"$bin/gw" seed -store "bolt:$work/bench.db" -products 3 -comments 60000
serve "bolt:$work/bench.db" 18090
"$bin/loadgen" -url http://127.0.0.1:18090/graphql -duration "$duration"
cleanup; pids=()

echo
echo "== DynamoDB Local"
(cd "$DYNAMODB_LOCAL_DIR" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port 18000 -disableTelemetry) >"$work/ddb.log" 2>&1 &
pids+=($!)
export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:18000 AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_EC2_METADATA_DISABLED=true
for i in $(seq 120); do
	"$bin/gw" create-table -store dynamodb:bench >/dev/null 2>&1 && break
	[[ $i == 120 ]] && { cat "$work/ddb.log" >&2; exit 1; }
	sleep 0.5
done
"$bin/gw" seed -store dynamodb:bench -products 3 -comments 60000
serve dynamodb:bench 18091
"$bin/loadgen" -url http://127.0.0.1:18091/graphql -duration "$duration"
