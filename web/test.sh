#!/usr/bin/env bash
# Browser test of GraphiQL (/) and the demo (/demo): installs the pinned npm
# packages (playwright-core) in web/, Debian's Chromium when it is missing,
# builds the gateway and runs web/e2e/browser.mjs against it on 127.0.0.1;
# then the client test, web/e2e/client.mjs (Apollo Client and urql, relay-style
# paging through every page of several filters, against a recount), which
# builds and starts its own gateway the same way; then the moderator view's
# test, web/e2e/moderation.mjs (/demo with -moderation pre and an API key:
# write, awaiting review, approve, hide); then the reviews widget's test,
# web/e2e/widget.mjs (/demo at desktop size and 390 px: sort, filter, load
# more, vote, a review with a bad field then a good one); then the Relay walk,
# web/relay/walk.mjs (relay-compiler over the served schema, relay-runtime
# paging and refetching through Query.node against a recount of the data it
# imports), with its own pinned packages in web/relay/; then the client
# example's test, web/e2e/react-apollo.mjs (examples/react-apollo built and
# served on another origin, in Chromium: pages, filters, live comments over
# websocket and SSE, a refused origin, the trusted-documents build). Fails
# if any fails.
# Screenshots: artifacts/graphiql.png, artifacts/demo*.png.
#   UPDATE_DOCS=1 web/test.sh   also refreshes docs/demo.png
#   CHROMIUM=/path/to/chrome    another browser binary
#   GATEWAY_BIN=/path/to/gw     skip `go build`
set -euo pipefail
cd "$(dirname "$0")"

chromium=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $chromium ]]; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    apt-get install -y chromium >/dev/null || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
  else
    echo "web/test.sh: no Chromium at $chromium (apt-get install chromium, or set CHROMIUM)" >&2
    exit 1
  fi
fi

npm ci --no-audit --no-fund --loglevel=error
# The subscription client test's packages (graphql-ws, graphql-sse): it runs
# later, with DynamoDB Local, as the Go test TestLiveClients (web/live_test.go).
(cd live && npm ci --no-audit --no-fund --loglevel=error)
status=0
# The Go test of the standard introspection query reads it from
# resolvers/testdata; it must be what the pinned graphql package prints.
for k in graphiql full; do
  if ! node e2e/introspection-query.mjs "$k" | cmp -s - "../resolvers/testdata/introspection-$k.graphql"; then
    echo "web/test.sh: resolvers/testdata/introspection-$k.graphql is stale:" \
      "node web/e2e/introspection-query.mjs $k > resolvers/testdata/introspection-$k.graphql" >&2
    status=1
  fi
done
node e2e/browser.mjs || status=$?
node e2e/moderation.mjs || status=1
node e2e/widget.mjs || status=1
node e2e/client.mjs || status=1
# The client example, examples/react-apollo, built (codegen, tsc, vite) with
# its own pinned packages, served from another origin than the gateway's.
(cd ../examples/react-apollo && npm ci --no-audit --no-fund --loglevel=error) || status=1
node e2e/react-apollo.mjs || status=1
(cd relay && npm ci --no-audit --no-fund --loglevel=error) || status=1
node relay/walk.mjs || status=1
exit "$status"
