#!/usr/bin/env bash
# Browser test of GraphiQL (/) and the demo (/demo): installs the pinned npm
# packages (playwright-core) in web/, Debian's Chromium when it is missing,
# builds the gateway and runs web/e2e/browser.mjs against it on 127.0.0.1;
# then the client test, web/e2e/client.mjs (Apollo Client, relay-style
# paging through every page of several filters, against a recount), which
# builds and starts its own gateway the same way. Fails if either fails.
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
node e2e/browser.mjs || status=$?
node e2e/client.mjs || status=1
exit "$status"
