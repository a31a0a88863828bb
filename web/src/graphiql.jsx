// GraphiQL entry point, bundled by build.sh into dist/graphiql/.
// Everything (React, GraphiQL, Monaco and its workers) is served by the
// gateway itself; nothing is fetched from any other host.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { getOperationAST, parse } from 'graphql';
import { createClient } from 'graphql-ws';
import 'graphiql/style.css';

// Monaco runs its language services in web workers; build.sh bundles each
// one into a classic-script file next to this module.
const workers = { json: 'json.worker.js', graphql: 'graphql.worker.js' };
globalThis.MonacoEnvironment = {
  getWorker(_id, label) {
    return new Worker(new URL(workers[label] || 'editor.worker.js', import.meta.url));
  },
};

// The server writes the endpoint and the defaults into a JSON data block
// (not executed, so it needs no script-src exception).
const config = JSON.parse(document.getElementById('graphiql-config').textContent);

// Subscriptions go over graphql-ws (graphql-transport-ws) on the same
// endpoint; the headers tab's Authorization / X-API-Key travel in the
// connection_init payload (browsers cannot set websocket headers).
let ws = null;
let wsParams = '';
function subscribe(params, headers = {}) {
  const auth = {};
  for (const [k, v] of Object.entries(headers)) {
    if (/^(authorization|x-api-key)$/i.test(k)) auth[k] = v;
  }
  if (!ws || JSON.stringify(auth) !== wsParams) {
    ws?.dispose();
    const url = new URL(config.endpoint, location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = createClient({ url: url.href, connectionParams: auth, lazy: true });
    wsParams = JSON.stringify(auth);
  }
  return ws.iterate(params);
}

function isSubscription(params) {
  try {
    return getOperationAST(parse(params.query), params.operationName)?.operation === 'subscription';
  } catch {
    return false; // the server reports the syntax error
  }
}

function fetcher(params, opts = {}) {
  if (isSubscription(params)) return subscribe(params, opts.headers);
  return post(params, opts);
}

// GraphiQL's schema query is graphql-js's standard introspection query,
// sent unchanged: the gateway's limits let introspection through (its depth
// is bounded by the schema, not by the client), so the docs pane,
// autocomplete and validation keep working whatever the schema's types are.
async function post(params, opts) {
  const res = await fetch(config.endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(opts.headers || {}) },
    body: JSON.stringify(params),
  });
  return res.json();
}

createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: config.query,
    defaultHeaders: config.headers,
    defaultEditorToolsVisibility: 'headers',
  }),
);
