#!/usr/bin/env bash
# Rebuilds web/dist (committed, embedded into the binary by go:embed) from the
# npm packages pinned in web/package.json + package-lock.json.
# Needs Node.js and npm; `go build` does not.
set -euo pipefail
cd "$(dirname "$0")"

npm ci --no-audit --no-fund
rm -rf dist/graphiql
esbuild=node_modules/.bin/esbuild
common=(--bundle --minify --legal-comments=none --log-level=warning
        --define:process.env.NODE_ENV='"production"' --target=es2022)

# GraphiQL: one ES module (no code splitting, so that the CSS of lazily
# imported modules such as Monaco lands in the one graphiql.css too).
"$esbuild" src/graphiql.jsx "${common[@]}" --format=esm \
  --outdir=dist/graphiql --entry-names=[name] \
  --asset-names=[name]-[hash] --loader:.ttf=file --jsx=automatic

# Monaco's web workers, as classic worker scripts beside the entry module.
"$esbuild" "${common[@]}" --format=iife --outdir=dist/graphiql \
  editor.worker=node_modules/monaco-editor/esm/vs/editor/editor.worker.js \
  json.worker=node_modules/monaco-editor/esm/vs/language/json/json.worker.js \
  graphql.worker=node_modules/monaco-graphql/esm/graphql.worker.js

cp src/page.css dist/graphiql/

# Store the big files gzipped only (the server sends them as they are to
# browsers, which all accept gzip, and unzips them for any other client).
find dist/graphiql -type f \( -name '*.js' -o -name '*.css' -o -name '*.ttf' \) -size +8k \
  -exec gzip -9 -n -f {} +
du -sh dist/graphiql
