// Test of the client example, examples/react-apollo, as a front-end
// developer runs it: type-checked and built (codegen, tsc --noEmit, vite
// build, and the trusted-documents build), served from its own origin — a
// static server on another port than the gateway — and driven in Chromium
// against the built gateway (serve -demo -open-mutations -cors-origins
// <the app's origin>) on 127.0.0.1:
//   - the first page of a product's comments and "load more" (the pages
//     merged by relayStylePagination) against a recount over plain fetch;
//   - the language and rating filters, and a bad filter whose error is shown
//     beside the partial data (errorPolicy 'all');
//   - a live commentAdded list over graphql-ws and over graphql-sse, each
//     receiving a comment created over HTTP;
//   - an app served from an origin outside -cors-origins: its websocket and
//     SSE both fail in the browser, and the same requests with that Origin
//     get 403 FORBIDDEN_ORIGIN (plain HTTP from Node, which can read them);
//   - the trusted-documents build against a gateway with its manifest and
//     -only-trusted-documents: ids only, never a query text, load more and
//     both live transports still working.
// Prints one PASS/FAIL line; exits non-zero on any failure.
//
//   web/test.sh   (npm ci in web/ and examples/react-apollo/, then this)
//   env: CHROMIUM (default /usr/bin/chromium), GATEWAY_BIN (skip go build)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { buildGateway, postGraphQL, root, runBounded, runGateway } from './gateway.mjs';

const example = join(root, 'examples', 'react-apollo');
const artifacts = join(root, 'artifacts');
mkdirSync(artifacts, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'gw-react-apollo-'));
const cleanups = [() => rmSync(tmp, { recursive: true, force: true })];
const log = (...a) => console.log('react-apollo:', ...a);
const DEADLINE_MS = 240_000; // a hang guard for the whole run, builds included
const WAIT_MS = 20_000; // one thing the page must show
const PRODUCT = 'espresso-machine';
const PAGE = 10; // the app's page size
let page; // for the failure screenshot

async function main() {
  // 1. The example, built twice (plain, and with trusted documents), and the gateway.
  // (synchronous, so bounded here: the deadline below cannot interrupt it)
  const npx = (...args) => execFileSync('npx', args, { cwd: example, stdio: 'inherit', timeout: 180_000, killSignal: 'SIGKILL' });
  log('codegen, tsc --noEmit, vite build (plain and trusted)');
  npx('graphql-codegen', '--config', 'codegen.ts', '--silent');
  npx('tsc', '--noEmit');
  npx('vite', 'build', '--logLevel', 'warn', '--emptyOutDir', '--outDir', join(tmp, 'app'));
  npx('vite', 'build', '--logLevel', 'warn', '--mode', 'trusted', '--emptyOutDir', '--outDir', join(tmp, 'app-trusted'));
  const manifestPath = join(example, 'src', 'gql', 'persisted-documents.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = buildGateway(tmp, log);

  // 2. The app on three origins of its own: one the gateway allows, one it
  // does not, and one the trusted gateway allows.
  const app = await serveStatic(join(tmp, 'app'));
  const refused = await serveStatic(join(tmp, 'app'));
  const trustedApp = await serveStatic(join(tmp, 'app-trusted'));
  const gateway = async (name, origin, flags = []) => {
    const gw = runGateway(bin, ['serve', '-addr', '127.0.0.1:0', '-store', `bolt:${join(tmp, `${name}.db`)}`,
      '-demo', '-open-mutations', '-cors-origins', origin, ...flags]);
    cleanups.unshift(gw.stop);
    return `${await gw.url}/graphql`;
  };
  const api = await gateway('plain', app.origin);
  log('gateway at', api, 'app at', app.origin, 'refused origin', refused.origin);

  // 3. Chromium, fresh profile.
  const context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  cleanups.unshift(() => context.close());
  page = context.pages()[0] || (await context.newPage());
  cleanups.unshift(() => page.screenshot({ path: join(artifacts, 'react-apollo-last.png') }));
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));

  await testPagesAndFilters(app.origin, api);
  await testPartialData(app.origin, api);
  for (const transport of ['ws', 'sse']) {
    await testLive(`${app.origin}/?transport=${transport}&api=${encodeURIComponent(api)}`, transport,
      (title) => createComment(api, title));
  }
  await testRefusedOrigin(refused.origin, app.origin, api);

  const trustedAPI = await gateway('trusted', trustedApp.origin,
    ['-trusted-documents', manifestPath, '-only-trusted-documents']);
  log('trusted gateway at', trustedAPI, 'app at', trustedApp.origin);
  await testTrusted(trustedApp.origin, trustedAPI, manifest);
  assert.deepEqual(pageErrors, [], 'no page errors');
}

// testPagesAndFilters: page 1, load more, and the filters, each against a
// recount over plain fetch.
async function testPagesAndFilters(origin, api) {
  log('pages and filters');
  await page.goto(`${origin}/?api=${encodeURIComponent(api)}`);
  await expectList(api, {}, 1);
  await page.getByTestId('load-more').click();
  await expectList(api, {}, 2);

  await page.getByTestId('language').selectOption('de');
  await expectList(api, { language: 'de' }, 1);
  for (const r of [4, 5]) await page.getByTestId(`rating-${r}`).check();
  const filter = { language: 'de', ratings: [4, 5] };
  await expectList(api, filter, 1);
  await page.getByTestId('load-more').click();
  await expectList(api, filter, 2);
  const shown = await page.locator('[data-testid=comments] li').evaluateAll((lis) =>
    lis.map((li) => [li.dataset.language, Number(li.dataset.rating)]));
  assert.ok(shown.every(([l, r]) => l === 'de' && [4, 5].includes(r)), `only de, 4–5★: ${JSON.stringify(shown)}`);
}

const recountQuery = `query($id: ID!, $language: String, $ratings: [Int!], $first: Int!) {
  product(id: $id) { comments(language: $language, ratings: $ratings, first: $first) { totalCount edges { node { id } } } } }`;

// expectList waits until the page shows `pages` pages of the filter and
// checks the ids, their order and the total against the server's.
async function expectList(api, filter, pages, doc = recountQuery) {
  const want = await recount(api, filter, pages * PAGE, doc);
  const ids = page.locator('[data-testid=comments] li');
  await waitFor(async () => (await ids.count()) === want.ids.length
    && JSON.stringify(await ids.evaluateAll((lis) => lis.map((li) => li.dataset.id))) === JSON.stringify(want.ids),
  `${pages} page(s) of ${JSON.stringify(filter)}: ${want.ids.length} comments as the server lists them`);
  assert.equal(Number(await page.getByTestId('total').textContent()), want.totalCount, `totalCount of ${JSON.stringify(filter)}`);
}

// recount reads the first n ids of the filter with plain fetch (no Apollo,
// no Origin), by doc: recountQuery, or { documentId } of the app's own
// query on a gateway that runs only trusted documents.
async function recount(api, { language = null, ratings = null }, n, doc) {
  const data = await postGraphQL(api, doc, { id: PRODUCT, language, ratings, first: n });
  const c = data.product.comments;
  return { totalCount: c.totalCount, ids: c.edges.map((e) => e.node.id) };
}

// testPartialData: a malformed language is a BAD_USER_INPUT error on the
// filtered fields, shown by code, while the rest of the reply (the
// product's languages in the filter's menu) is still on the page.
async function testPartialData(origin, api) {
  log('errorPolicy all: partial data and a coded error');
  await page.goto(`${origin}/?language=en_US&api=${encodeURIComponent(api)}`);
  await page.locator('[data-testid=query-errors] li[data-code=BAD_USER_INPUT]').first().waitFor({ timeout: WAIT_MS });
  await page.locator('[data-testid=language] option[value=de]').waitFor({ state: 'attached', timeout: WAIT_MS });
}

// testLive: the page's live list (over transport) receives a comment
// created over HTTP. The subscription starts a moment after the
// connection: a comment is created every 2 s until one arrives (at most
// 5), and each later one must arrive too.
async function testLive(url, transport, create) {
  log(`live over ${transport}`);
  await page.goto(url);
  await page.getByTestId('live-status').getByText(`${transport}: connected`).waitFor({ timeout: WAIT_MS });
  const live = page.locator('[data-testid=live] li');
  const arrived = (id) => page.locator(`[data-testid=live] li[data-id="${id}"]`);
  let got = null;
  for (let i = 0; i < 5 && !got; i++) {
    const id = await create(`live over ${transport} ${i}`);
    try {
      await arrived(id).waitFor({ timeout: 2_000 });
      got = id;
    } catch { /* not subscribed yet */ }
  }
  assert.ok(got, `a comment created over HTTP arrives over ${transport}`);
  const next = await create(`live over ${transport}, then`);
  await arrived(next).waitFor({ timeout: WAIT_MS });
  assert.equal(await live.first().getAttribute('data-id'), next, 'the newest live comment first');
}

// createComment creates a comment over HTTP (plain fetch) and returns its id.
async function createComment(api, title, documentId) {
  const input = { productId: PRODUCT, language: 'en', rating: 4, author: 'react-apollo test', title, body: title };
  const data = await postGraphQL(api, documentId ? { documentId }
    : 'mutation($input: CreateCommentInput!) { createComment(input: $input) { comment { id } } }', { input });
  return data.createComment.comment.id;
}

// testRefusedOrigin: the app served from an origin outside -cors-origins
// gets nothing: its query fails (CORS), its websocket and its SSE stream
// fail too. The browser hides why from the page, so the same two requests
// are sent from Node with that Origin: 403 FORBIDDEN_ORIGIN, each; and with
// the allowed origin, a 101 and a 200.
async function testRefusedOrigin(refusedOrigin, allowedOrigin, api) {
  log('refused origin');
  for (const transport of ['ws', 'sse']) {
    const handshake403 = transport === 'ws' && page.waitForEvent('console', {
      predicate: (m) => /WebSocket/.test(m.text()) && /403/.test(m.text()), timeout: WAIT_MS });
    await page.goto(`${refusedOrigin}/?transport=${transport}&api=${encodeURIComponent(api)}`);
    await page.locator('[data-testid=query-errors] li[data-code=NETWORK]').waitFor({ timeout: WAIT_MS });
    await page.locator('[data-testid=live-errors] li[data-code=NETWORK]').waitFor({ timeout: WAIT_MS });
    if (handshake403) await handshake403; // Chromium logs the handshake's status
  }
  for (const [origin, want] of [[refusedOrigin, 403], [allowedOrigin, 'ok']]) {
    const ws = await upgrade(api, origin);
    const sse = await sseRequest(api, origin);
    if (want === 403) {
      for (const [name, r] of [['websocket', ws], ['SSE', sse]]) {
        assert.equal(r.status, 403, `${name} from ${origin}: 403`);
        const body = JSON.parse(r.body);
        assert.equal(body.errors?.[0]?.extensions?.code, 'FORBIDDEN_ORIGIN', `${name} from ${origin}: ${r.body}`);
        assert.ok(body.errors[0].message.includes(origin), `${name}: the message names the origin: ${r.body}`);
      }
    } else {
      assert.equal(ws.status, 101, `websocket from ${origin}: 101 (${ws.body})`);
      assert.equal(sse.status, 200, `SSE from ${origin}: 200 (${sse.body})`);
    }
  }
}

// upgrade asks for a graphql-transport-ws websocket with Origin and
// resolves to the reply's status and body (a 101 is ended at once).
function upgrade(api, origin) {
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const req = request(api, {
      headers: { Origin: origin, Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': key, 'Sec-WebSocket-Protocol': 'graphql-transport-ws' },
      timeout: WAIT_MS,
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode, body: '' }); });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(new Error('websocket handshake timed out')));
    req.on('error', reject);
    req.end();
  });
}

// sseRequest subscribes over GraphQL over SSE with Origin and resolves to
// the status and, for an error, the body (a stream is cancelled at once).
async function sseRequest(api, origin) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), WAIT_MS);
  try {
    const res = await fetch(api, {
      method: 'POST',
      headers: { Origin: origin, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ query: `subscription { commentAdded(productId: "${PRODUCT}") { id } }` }),
      signal: ctl.signal,
    });
    const body = res.ok ? '' : await res.text();
    ctl.abort();
    return { status: res.status, body };
  } finally {
    clearTimeout(timer);
  }
}

// testTrusted: the trusted-documents build sends only ids (GET for its
// queries, no clientLibrary in the URL), and paging and both live transports
// work against a gateway that runs nothing else.
async function testTrusted(origin, api, manifest) {
  log('trusted documents');
  const sent = [];
  const onRequest = (req) => { if (req.url().startsWith(api)) sent.push({ url: req.url(), body: req.postData() || '' }); };
  page.on('request', onRequest);
  await page.goto(`${origin}/?api=${encodeURIComponent(api)}`);
  const idOf = (operation) => {
    const id = Object.keys(manifest).find((k) => manifest[k].includes(`${operation}(`));
    assert.ok(id, `${operation} in the manifest`);
    return id;
  };
  const byId = { documentId: idOf('query ProductComments') };
  await expectList(api, {}, 1, byId);
  await page.getByTestId('load-more').click();
  await expectList(api, {}, 2, byId);
  const mutationId = idOf('mutation CreateComment');
  for (const transport of ['ws', 'sse']) {
    await testLive(`${origin}/?transport=${transport}&api=${encodeURIComponent(api)}`, transport,
      (title) => createComment(api, title, mutationId));
  }
  // The app's own form posts a comment (the mutation by its id, too), and
  // the live list shows it.
  await page.getByTestId('new-title').fill('posted from the trusted build');
  await page.getByTestId('post').click();
  await page.locator('[data-testid=live] li', { hasText: 'posted from the trusted build' }).waitFor({ timeout: WAIT_MS });
  page.off('request', onRequest);
  assert.ok(sent.some((r) => r.url.includes('extensions=')), 'queries by hash over GET');
  for (const r of sent) {
    assert.ok(!/[?&]query=/.test(r.url) && !/"query":"[^"]/.test(r.body), `no query text sent: ${r.url} ${r.body}`);
    assert.ok(!r.url.includes('clientLibrary') && !r.body.includes('clientLibrary'), `no clientLibrary: ${r.url}`);
  }
}

// waitFor polls check until it is true, or fails with what after WAIT_MS.
async function waitFor(check, what) {
  const end = Date.now() + WAIT_MS;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// serveStatic serves dir's files on 127.0.0.1 (a port of its own, so an
// origin of its own), index.html for any other path; resolves to { origin }
// and registers its close.
async function serveStatic(dir) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };
  const server = createServer((req, res) => {
    const path = normalize(new URL(req.url, 'http://x').pathname).replace(/^(\.\.[/\\])+/, '');
    let file = join(dir, path);
    let body;
    try { body = readFileSync(file); } catch { file = join(dir, 'index.html'); body = readFileSync(file); }
    res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream' });
    res.end(body);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  cleanups.unshift(() => new Promise((done) => { server.closeAllConnections(); server.close(done); }));
  return { origin: `http://127.0.0.1:${server.address().port}` };
}

const failed = await runBounded({
  main,
  deadlineMs: DEADLINE_MS,
  cleanups,
  prefix: 'react-apollo',
});
console.log(failed ? 'react-apollo: FAIL' : 'react-apollo: PASS');
process.exit(failed ? 1 : 0);
