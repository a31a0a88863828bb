// Subscription client test: the real graphql-ws and graphql-sse clients
// against the built gateway. Two instances (A, B) share one DynamoDB Local
// table; a third (C) runs on bbolt with API keys, subscriptions needing a
// credential and a small subscriber buffer. Checks, each against the
// test's own record or a fresh query:
//   - a comment created through A reaches subscribers on B (websocket, SSE);
//   - filters: commentAdded(language, ratings) gets exactly the matching
//     new comments;
//   - a list kept from one `comments` page plus commentChanged events ends
//     equal to a fresh query, and statsChanged ends at the queried stats;
//   - restart: B stops (clients see 1012 / a cut stream) and comes back on
//     the same port; clients reconnect, catch up with comments(before:
//     newest cursor), and end with every comment;
//   - auth: connection_init payload and headers; refusals;
//   - a slow consumer is cut off, others on the same server get everything.
// Needs DYNAMODB_ENDPOINT; GATEWAY_BIN skips `go build`.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createWSClient } from 'graphql-ws';
import { createClient as createSSEClient } from 'graphql-sse';
import WebSocket from 'ws';
import { buildGateway, runGateway } from '../e2e/gateway.mjs';

const log = (...a) => console.log('live:', ...a);
const failures = [];
const check = (ok, what) => {
  if (ok) log('ok', what);
  else {
    failures.push(what);
    log('FAIL', what);
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// until polls cond every 50 ms, failing after limit ms (a bound, not a
// timing assertion: on time every condition holds within a second or two).
async function until(cond, what, limit = 30_000) {
  const end = Date.now() + limit;
  while (Date.now() < end) {
    if (await cond()) {
      log('ok', what);
      return true;
    }
    await sleep(50);
  }
  check(false, `${what} (not within ${limit / 1000} s)`);
  return false;
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function gql(base, query, variables = {}, headers = {}) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors)}`);
  return body.data;
}

const COMMENT = 'id language rating title body createdAt';
const createMut = `mutation($in: CreateCommentInput!) { createComment(input: $in) { comment { ${COMMENT} } } }`;
async function create(base, productId, language, rating, title, headers, body = 'b') {
  const d = await gql(base, createMut, { in: { productId, language, rating, author: 'live', title, body } }, headers);
  return d.createComment.comment;
}

// fullList returns every comment of a product matching the filter, newest first.
async function fullList(base, productId) {
  const d = await gql(base, `query($p: ID!) { product(id: $p) { comments(first: 100) { edges { cursor node { ${COMMENT} } } } } }`, { p: productId });
  return d.product.comments.edges;
}

// LiveList keeps a product's comment list from one page plus commentChanged
// events, ordered by cursor (the server's order: createdAt, id, newest first).
class LiveList {
  constructor(edges) {
    this.byId = new Map(edges.map((e) => [e.node.id, { cursor: e.cursor, node: e.node }]));
  }
  apply({ kind, cursor, comment }) {
    if (kind === 'DELETED') this.byId.delete(comment.id);
    else this.byId.set(comment.id, { cursor, node: comment });
  }
  newestCursor() {
    return this.sorted()[0]?.cursor;
  }
  sorted() {
    // A cursor is base64url of 0x01 + GSISK; GSISK sorts like the list.
    const key = (c) => Buffer.from(c, 'base64url').toString('latin1');
    return [...this.byId.values()].sort((a, b) => (key(a.cursor) < key(b.cursor) ? 1 : -1));
  }
  ids() {
    return this.sorted().map((e) => e.node.id);
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function main() {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('set DYNAMODB_ENDPOINT (DynamoDB Local)');
  const tmp = mkdtempSync(join(tmpdir(), 'gw-live-'));
  const cleanups = [() => rmSync(tmp, { recursive: true, force: true })];
  try {
    const bin = buildGateway(tmp, log);
    const table = `live-js-${process.pid}-${Date.now()}`;
    execFileSync(bin, ['create-table', '-store', `dynamodb:${table}`], { stdio: 'inherit' });
    const dyn = ['serve', '-dev', '-demo=false', '-store', `dynamodb:${table}`, '-live-poll', '200ms', '-live-keepalive', '2s'];
    const start = (args) => {
      const gw = runGateway(bin, args);
      cleanups.unshift(gw.stop);
      return gw;
    };
    const portB = await freePort();
    // A starts first, so it takes the stream reader's lease.
    const gwA = start([...dyn, '-addr', '127.0.0.1:0']);
    const A = await gwA.url;
    let gwB = start([...dyn, '-addr', `127.0.0.1:${portB}`]);
    const B = await gwB.url;
    log('A', A, 'B', B, 'table', table);
    await crossInstance(A, B, async () => {
      await gwB.stop();
      return async () => {
        gwB = start([...dyn, '-addr', `127.0.0.1:${portB}`]);
        await gwB.url;
      };
    }, () => process.kill(gwA.pid, 'SIGKILL'));
    await authAndSlowConsumer(bin, tmp, start);
  } finally {
    for (const c of cleanups) await c();
  }
}

// crossInstance: subscribers on B, writes through A and B; then B restarts;
// then A, the stream reader, is killed.
async function crossInstance(A, B, stopB, killA) {
  const P = 'live-p1';
  const wsURL = B.replace('http', 'ws') + '/graphql';
  let reconnected = 0;
  const ws = createWSClient({
    url: wsURL, webSocketImpl: WebSocket, retryAttempts: 1000, shouldRetry: () => true,
    retryWait: () => sleep(200), lazy: false,
    on: { connected: (_s, _p, wasRetry) => { if (wasRetry) reconnected++; } },
  });
  const sse = createSSEClient({ url: `${B}/graphql`, retryAttempts: 1000, retry: () => sleep(200) });
  const list = new LiveList(await fullList(B, P));
  const added = [];
  let stats = null;
  let sseSeen = 0;
  const errs = [];
  const sink = (on) => ({ next: on, error: (e) => errs.push(e), complete: () => {} });
  ws.subscribe({ query: `subscription($p: ID!) { commentChanged(productId: $p) { kind cursor comment { ${COMMENT} } } }`, variables: { p: P } },
    sink(({ data }) => list.apply(data.commentChanged)));
  ws.subscribe({ query: `subscription($p: ID!) { commentAdded(productId: $p, language: "EN", ratings: [5, 4, 5]) { id } }`, variables: { p: P } },
    sink(({ data }) => added.push(data.commentAdded.id)));
  sse.subscribe({ query: `subscription($p: ID!) { statsChanged(productId: $p) { total averageRating ratings { rating count } } }`, variables: { p: P } },
    sink(({ data }) => { stats = data.statsChanged; }));
  sse.subscribe({ query: `subscription($p: ID!) { commentAdded(productId: $p) { id } }`, variables: { p: P } },
    sink(() => { sseSeen++; }));

  // The subscriptions are active once a comment made through A arrives.
  const first = await create(A, P, 'de', 1, 'first');
  await until(() => list.byId.has(first.id) && sseSeen > 0, 'a comment created through A reaches websocket and SSE subscribers on B');

  const record = new Map([[first.id, first]]);
  const createdAll = [first]; // as created (later updates do not count)
  const langs = ['en', 'fr', 'EN-gb'];
  for (let i = 0; i < 40; i++) {
    const via = i % 2 ? A : B;
    const ids = [...record.keys()];
    const op = i < 10 ? 0 : i % 4;
    if (op <= 1 || !ids.length) {
      const c = await create(via, P, langs[i % 3], 1 + (i * 7) % 5, `c${i}`);
      record.set(c.id, c);
      createdAll.push(c);
    } else if (op === 2) {
      const id = ids[(i * 5) % ids.length];
      const d = await gql(via, `mutation($in: UpdateCommentInput!) { updateComment(input: $in) { comment { ${COMMENT} } } }`,
        { in: { id, rating: 1 + (i % 5), language: langs[(i + 1) % 3] } });
      record.set(id, d.updateComment.comment);
    } else {
      const id = ids[(i * 3) % ids.length];
      await gql(via, 'mutation($id: ID!) { deleteComment(input: {id: $id}) { deletedCommentId } }', { id });
      record.delete(id);
    }
  }
  const marker = await create(A, P, 'de', 2, 'marker');
  record.set(marker.id, marker);
  createdAll.push(marker);
  await until(() => list.byId.has(marker.id), 'the marker comment arrives');
  const fresh = await fullList(A, P);
  check(same(list.ids(), fresh.map((e) => e.node.id)), `live list (${list.byId.size}) equals a fresh comments query (${fresh.length})`);
  check(same(list.sorted().map((e) => e.node), fresh.map((e) => e.node)), 'live list comments have the queried fields');
  check(same(new Set(fresh.map((e) => e.node.id)), new Set(record.keys())) && fresh.length === record.size, 'fresh query equals the test\'s own record');
  const wantAdded = createdAll.filter((c) => c.language === 'en' && (c.rating === 5 || c.rating === 4)).map((c) => c.id);
  check(wantAdded.length > 0 && same(added, wantAdded),
    `commentAdded(language: "EN", ratings: [5, 4, 5]) got exactly the ${wantAdded.length} new en 4/5-star comments, in order (got ${added.length})`);
  const q = await gql(A, `query($p: ID!) { product(id: $p) { stats { total averageRating ratings { rating count } } } }`, { p: P });
  await until(() => same(stats, q.product.stats), 'statsChanged over SSE ends at the queried stats');
  check(errs.length === 0, `no subscription errors (${errs.map(String).join('; ')})`);

  // Restart B while comments are created through A.
  const restart = await stopB();
  const during = [];
  for (let i = 0; i < 3; i++) during.push(await create(A, P, 'en', 5, `while B is down ${i}`));
  const seenBefore = sseSeen;
  await restart();
  await until(() => reconnected > 0, 'the graphql-ws client reconnects to the restarted B');
  // Catch up: everything newer than the newest comment the list has.
  const newest = list.newestCursor();
  const missed = await gql(B, `query($p: ID!, $c: String) { product(id: $p) { comments(last: 100, before: $c) { edges { cursor node { ${COMMENT} } } } } }`, { p: P, c: newest });
  for (const e of missed.product.comments.edges) list.apply({ kind: 'ADDED', cursor: e.cursor, comment: e.node });
  check(during.every((c) => list.byId.has(c.id)), 'catch-up with comments(last, before: newest cursor) finds the comments made while B was down');
  const after = await create(A, P, 'en', 5, 'after restart');
  await until(() => list.byId.has(after.id), 'after the restart, events flow again (websocket)');
  await until(() => sseSeen > seenBefore, 'after the restart, the graphql-sse client is streaming again');
  const fresh2 = await fullList(A, P);
  check(same(list.ids(), fresh2.map((e) => e.node.id)), 'after the restart the live list still equals a fresh query');

  // Kill A, the stream reader, so it cannot release its lease: B takes the
  // lease over once it is stale and delivers what was written meanwhile.
  killA();
  const afterKill = [];
  for (let i = 0; i < 3; i++) afterKill.push(await create(B, P, 'fr', 1 + i, `after A died ${i}`));
  await until(() => afterKill.every((c) => list.byId.has(c.id)), 'after A (the stream reader) is killed, B takes over and its subscribers get the comments written meanwhile');
  const fresh3 = await fullList(B, P);
  check(same(list.ids(), fresh3.map((e) => e.node.id)), 'after the failover the live list still equals a fresh query');
  await ws.dispose();
  sse.dispose();
}

// authAndSlowConsumer runs C: bbolt, an API key, -live-auth, buffer 2.
async function authAndSlowConsumer(bin, tmp, start) {
  const key = 'live-test-key';
  const hash = createHash('sha256').update(key).digest('hex');
  const gwC = start(['serve', '-demo=false', '-addr', '127.0.0.1:0', '-store', `bolt:${join(tmp, 'c.db')}`, '-api-keys', hash,
    '-live-auth', '-live-buffer', '2', '-live-write-timeout', '2s']);
  const C = await gwC.url;
  const wsURL = C.replace('http', 'ws') + '/graphql';
  const P = 'live-auth';
  const auth = { 'X-API-Key': key };
  const sub = { query: `subscription { commentAdded(productId: "${P}") { id } }` };

  // No credential: the connection is refused with 4403.
  const closeCode = await new Promise((resolve) => {
    const c = createWSClient({ url: wsURL, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
    c.subscribe(sub, { next: () => {}, complete: () => resolve('complete'), error: (e) => resolve(e?.code ?? String(e)) });
  });
  check(closeCode === 4403, `graphql-ws without a credential: close ${closeCode}, want 4403`);
  const sseErr = await new Promise((resolve) => {
    const c = createSSEClient({ url: `${C}/graphql`, retryAttempts: 0 });
    c.subscribe(sub, { next: (r) => resolve(r.errors?.[0]?.extensions?.code), complete: () => resolve('complete'), error: (e) => resolve(String(e)) });
  });
  check(sseErr === 'UNAUTHENTICATED', `graphql-sse without a credential: ${sseErr}, want UNAUTHENTICATED`);

  // With the key: connection_init payload (websocket), headers (SSE).
  const got = { ws: [], sse: [] };
  const ws = createWSClient({ url: wsURL, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${key}` }, lazy: false });
  const sse = createSSEClient({ url: `${C}/graphql`, headers: auth });
  ws.subscribe(sub, { next: ({ data }) => got.ws.push(data.commentAdded.id), error: (e) => log('ws error', e), complete: () => {} });
  sse.subscribe(sub, { next: ({ data }) => got.sse.push(data?.commentAdded?.id), error: (e) => log('sse error', e), complete: () => {} });
  await until(async () => {
    await create(C, P, 'en', 3, 'probe', auth);
    return got.ws.length > 0 && got.sse.length > 0;
  }, 'with the API key, graphql-ws (connection_init) and graphql-sse (headers) subscribers receive comments', 10_000);

  // A slow consumer: a raw graphql-transport-ws socket that stops reading,
  // with 50 subscriptions to big comments. The server must cut it off (its
  // buffer is 2 events) while the others get every comment.
  const slow = new WebSocket(wsURL, 'graphql-transport-ws');
  let slowNext = 0;
  let slowError = null;
  let slowClosed = null;
  slow.on('message', (b) => {
    const m = JSON.parse(b);
    if (m.type === 'next') slowNext++;
    if (m.type === 'error') slowError = m.payload?.[0]?.extensions?.code;
  });
  slow.on('close', (code) => { slowClosed = code; });
  await new Promise((r) => slow.once('open', r));
  slow.send(JSON.stringify({ type: 'connection_init', payload: auth }));
  await new Promise((r) => slow.once('message', r)); // connection_ack
  for (let i = 0; i < 50; i++) {
    slow.send(JSON.stringify({ type: 'subscribe', id: String(i), payload: { query: `subscription { commentAdded(productId: "${P}") { id body } }` } }));
  }
  await sleep(500);
  slow._socket.pause();
  const before = { ws: got.ws.length, sse: got.sse.length };
  const big = 'x'.repeat(10_000);
  const N = 100; // 100 comments × 50 subscriptions × 10 KB = 50 MB: far beyond any socket buffer
  for (let i = 0; i < N; i++) await create(C, P, 'en', 4, `big ${i}`, auth, big);
  await until(() => got.ws.length - before.ws === N && got.sse.length - before.sse === N, 'subscribers that keep up get every comment while a slow one stalls');
  await sleep(3000); // past -live-write-timeout 2s
  slow._socket.resume();
  await until(() => slowClosed !== null || slowError !== null, 'the slow consumer is cut off (SLOW_CONSUMER error or closed connection)');
  check(slowNext < N * 50, `the slow consumer got ${slowNext} of ${N * 50} events before it was cut off (error ${slowError}, close ${slowClosed})`);
  const ok = await gql(C, '{ product(id: "x") { id } }');
  check(ok.product.id === 'x', 'the server still answers after cutting off the slow consumer');
  slow.terminate();
  await ws.dispose();
  sse.dispose();
}

main().then(
  () => {
    if (failures.length) {
      console.log(`live: FAIL (${failures.length}): ${failures.join('; ')}`);
      process.exit(1);
    }
    console.log('live: PASS');
    process.exit(0);
  },
  (err) => {
    console.log('live: FAIL', err);
    process.exit(1);
  },
);
