#!/usr/bin/env bash
# The GraphQL-over-HTTP audit (graphql-http's auditServer) against the built
# gateway: builds it, starts `serve` on 127.0.0.1 with an empty bolt store,
# runs scripts/audit.mjs, stops the server by its pid. Exit status: non-zero
# when a MUST audit fails.
#
# graphql-http (zero dependencies) is pinned in package.json and
# package-lock.json; only its tarball is fetched (`npm pack`), checked against
# the lockfile's sha512 and unpacked into the cache: no `npm install`, none of
# amplify-dynamodb-simulator's dependencies. A second run needs no network.
#
# Usage: scripts/audit.sh [URL]   (with a URL: audit that server, start none)
# Env:   AUDIT_CACHE  cache directory (default: <repo>/.dynamodb, gitignored)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${AUDIT_CACHE:-$root/.dynamodb}
pkg=graphql-http

say() { printf '%s\n' "$*" >&2; }
die() { say "audit: $*"; exit 1; }
command -v node >/dev/null || die "node is required"

# shellcheck disable=SC2016 # JavaScript, not shell
read -r version integrity < <(node -e '
  const [lockPath, jsonPath, name] = process.argv.slice(1);
  const lock = require(lockPath), pj = require(jsonPath);
  const p = (lock.packages || {})["node_modules/" + name];
  if (!p || !p.version || !p.integrity) { console.error(`${name} is not pinned in package-lock.json`); process.exit(1); }
  const want = (pj.devDependencies || {})[name];
  if (want !== p.version) { console.error(`package.json pins ${name}@${want} but package-lock.json has ${p.version}`); process.exit(1); }
  console.log(p.version, p.integrity);
' "$root/package-lock.json" "$root/package.json" "$pkg") || die "cannot read the pin of $pkg"

dest=$cache/$pkg-$version
if ! [[ -f $dest/lib/audits/index.mjs && -f $dest/.integrity && $(<"$dest/.integrity") == "$integrity" ]]; then
	command -v npm >/dev/null || die "npm is required (npm pack fetches the tarball)"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack "$pkg@$version" --prefer-offline --ignore-scripts --silent >/dev/null 2>&1) ||
		die "npm pack $pkg@$version failed"
	# shellcheck disable=SC2016 # JavaScript, not shell
	node -e '
	  const [file, want] = process.argv.slice(1);
	  const [algo, digest] = want.split("-", 2);
	  const got = require("crypto").createHash(algo).update(require("fs").readFileSync(file)).digest("base64");
	  if (got !== digest) { console.error(`integrity mismatch: got ${algo}-${got}, package-lock.json has ${want}`); process.exit(1); }
	' "$tmp/$pkg-$version.tgz" "$integrity" || die "refusing to unpack a tarball that does not match package-lock.json"
	tar -xzf "$tmp/$pkg-$version.tgz" -C "$tmp"
	printf '%s\n' "$integrity" >"$tmp/package/.integrity"
	rm -rf "$dest"
	mv "$tmp/package" "$dest"
fi

if [[ -n ${1:-} ]]; then
	exec node "$root/scripts/audit.mjs" "$dest" "$1"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/comments-audit.XXXXXX")
pid=
stop() {
	if [[ -n $pid ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap stop EXIT
trap 'exit 143' TERM INT
(cd "$root" && go build -o "$work/gw" .)
# Mutations open (no credential), and introspection on: two MUST audits
# (BF61, 28B9) query __type, so with introspection off they fail for that
# reason alone.
"$work/gw" serve -addr 127.0.0.1:0 -demo=false -store "bolt:$work/audit.db" -open-mutations -introspection >"$work/out" 2>"$work/err" &
pid=$!
addr=
for _ in $(seq 300); do
	addr=$(sed -n '1s|^listening on http://\(127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$work/out")
	[[ -n $addr ]] && break
	kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; die "gw serve exited"; }
	sleep 0.1
done
[[ -n $addr ]] || { cat "$work/err" >&2; die "gw serve printed no address"; }
say "auditing http://$addr/graphql (graphql-http $version, gw serve -open-mutations -introspection, pid $pid)"
node "$root/scripts/audit.mjs" "$dest" "http://$addr/graphql"
