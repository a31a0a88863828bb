// Relay walk test: the gateway through Relay's own tools, against data this
// test generates and imports.
//
//  1. Generates comments for two products (JSON lines, a seeded generator;
//     one comment's id is also a product id), builds the gateway, loads them
//     with its `import` command into a fresh bolt store and serves it on
//     127.0.0.1 (web/e2e/gateway.mjs) with introspection on.
//  2. Prints the schema from the server's introspection (graphql's
//     printSchema) and runs the real relay-compiler over it and src/
//     (a product page: a @refetchable fragment with a @connection on
//     comments filtered by language and ratings; a @refetchable comment
//     row). Any warning or error fails the test.
//  3. Drives relay-runtime as usePaginationFragment does (the compiled
//     pagination metadata, getPaginationVariables, fetchQuery): for each
//     product and filter, page 1 then every page forward into one
//     environment, and the oldest page then every page backward into
//     another, merged by the store's ConnectionHandler; refetches the
//     product and a comment through Query.node; and checks what the store
//     holds (the fragments' data, the connection records, every normalized
//     Comment and Product record) against a recount of the generated data.
// Prints one PASS/FAIL line; exits non-zero on any mismatch.
//
//   web/test.sh                      (runs this after the other web tests)
//   cd web/relay && npm ci && node walk.mjs
//   env: GATEWAY_BIN (skip go build)
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { launchGateway, postGraphQL, root, runBounded } from '../e2e/gateway.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { getIntrospectionQuery, buildClientSchema, printSchema } = require('graphql');
const {
  Environment, Network, RecordSource, Store, ConnectionHandler, commitLocalUpdate, createOperationDescriptor,
  fetchQuery, getSelector, getPaginationMetadata, getPaginationVariables, getRefetchMetadata, getValueAtPath,
} = require('relay-runtime');

const tmp = mkdtempSync(join(tmpdir(), 'gw-relay-'));
const cleanups = [() => rmSync(tmp, { recursive: true, force: true })];
const log = (...a) => console.log('relay:', ...a);
const started = Date.now();
const DEADLINE_MS = 300_000; // the whole run, build included
const REQUEST_MS = 30_000; // one HTTP request

const PRODUCTS = ['desk-lamp', 'tea-kettle'];
const COLLIDING = 'desk-lamp'; // a comment id (on tea-kettle) that is also a product id
const FILTERS = [
  {},
  { language: 'de' },
  { ratings: [1, 2] },
  { language: 'en', ratings: [1, 3, 5] },
  { ratings: [5] },
];
const PAGE = 7;
let checks = 0;
let requests = 0;

async function main() {
  assert.ok(existsSync(join(here, 'node_modules/.bin/relay-compiler')), 'no relay-compiler: run npm ci in web/relay first');
  const data = generate();
  const byId = new Map(data.map((c) => [c.id, c]));

  // 1. Build, import, serve.
  let bin = process.env.GATEWAY_BIN;
  if (!bin) {
    bin = join(tmp, 'gw');
    log('go build');
    execFileSync('go', ['build', '-o', bin, '.'], { cwd: root, stdio: 'inherit' });
    process.env.GATEWAY_BIN = bin;
  }
  const file = join(tmp, 'comments.jsonl');
  writeFileSync(file, data.map((c) => JSON.stringify(c)).join('\n') + '\n');
  execFileSync(bin, ['import', '-store', `bolt:${join(tmp, 'comments.db')}`, file], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
  const base = await launchGateway({ tmp, flags: ['-demo=false', '-introspection', '-open-mutations'], log, cleanups });
  const url = `${base}/graphql`;
  log(`gateway at ${base}, ${data.length} comments imported`);

  // 2. The schema from introspection, then relay-compiler.
  const intro = await post(url, getIntrospectionQuery({ descriptions: true }), {});
  writeFileSync(join(here, 'schema.graphql'), printSchema(buildClientSchema(intro)));
  rmSync(join(here, 'src/__generated__'), { recursive: true, force: true });
  const compiler = spawnSync(join(here, 'node_modules/.bin/relay-compiler'), [], { cwd: here, encoding: 'utf8', timeout: 120_000 });
  const out = `${compiler.stdout}${compiler.stderr}`;
  assert.equal(compiler.status, 0, `relay-compiler failed:\n${out}`);
  assert.doesNotMatch(out, /warn|error/i, `relay-compiler printed a warning:\n${out}`);
  checks += 2;
  const artifact = (name) => require(join(here, 'src/__generated__', `${name}.graphql.js`));
  const gen = {
    ProductPageQuery: artifact('ProductPageQuery'),
    ProductPage: artifact('ProductPage_product'),
    CommentRow: artifact('CommentRow_comment'),
  };
  log('relay-compiler: no warnings;', out.match(/compiled documents[^\n]*/)?.[0] ?? '');

  // 3. Pages, both ways, each direction in its own environment.
  const forward = newEnvironment(url);
  const backward = newEnvironment(url);
  const pages = [];
  for (const product of PRODUCTS) {
    for (const filter of FILTERS) {
      const want = recount(data, { product, ...filter });
      const name = `${product} ${JSON.stringify(filter)}`;
      for (const [env, direction] of [[forward, 'forward'], [backward, 'backward']]) {
        const page = await walk(env, gen, product, filter, direction);
        checkPage(env, gen, page, want, byId, `${name} ${direction}`);
        pages.push(page);
      }
      checkStats(pages.at(-1).data.stats, recount(data, { product, language: filter.language }), name);
      log(`${name}: ${want.length} comments, ${Math.ceil(want.length / PAGE)} pages each way: ok`);
    }
  }
  // Every connection stayed whole beside the others (filters keep them apart).
  for (const p of pages) {
    assert.deepEqual(connectionIds(p.env, p.productRecord, p.filter), recount(data, { product: p.product, ...p.filter }).map((c) => c.id),
      `${p.product} ${JSON.stringify(p.filter)} ${p.direction}: connection record intact at the end`);
    checks++;
  }

  await refetchProduct(forward, gen, pages[0], data);
  await refetchComment(forward, gen, byId);
  checkRecords(forward, data, byId);
  await checkNodes(url, forward, byId);
}

// The Relay environment as docs/clients.md shows it: records are keyed by
// nodeId (nodeInterfaceIdField), so a product and a comment sharing an id
// stay two records.
function newEnvironment(url) {
  const getDataID = (fieldValue) => fieldValue.nodeId;
  return new Environment({
    network: Network.create((params, variables) => {
      requests++;
      return fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: params.text, variables }),
        signal: AbortSignal.timeout(REQUEST_MS),
      }).then((res) => res.json()).then((body) => {
        // Relay stores partial data next to errors; this test wants none.
        assert.ok(!body.errors, `${params.name} ${JSON.stringify(variables)}: ${JSON.stringify(body.errors)}`);
        return body;
      });
    }),
    store: new Store(new RecordSource(), { getDataID }),
    getDataID,
  });
}

// walk loads the product page (first page of the direction, as a mounted
// page: retained), then loads every further page the way
// usePaginationFragment's loadNext/loadPrevious do, and returns the
// fragment's final data and where it lives.
async function walk(env, gen, product, filter, direction) {
  const vars = {
    id: product, language: filter.language ?? null, ratings: filter.ratings ?? null,
    first: direction === 'forward' ? PAGE : null, after: null,
    last: direction === 'backward' ? PAGE : null, before: null,
  };
  const operation = createOperationDescriptor(gen.ProductPageQuery, vars);
  env.retain(operation);
  const first = await fetchQuery(env, gen.ProductPageQuery, vars).toPromise();
  assert.ok(first.product, `${product}: page 1 has the product`);
  const fragmentRef = env.lookup(operation.fragment).data.product;
  const selector = getSelector(gen.ProductPage, fragmentRef);
  const meta = getPaginationMetadata(gen.ProductPage, 'walk');
  const { identifierInfo } = getRefetchMetadata(gen.ProductPage, 'walk');
  let data = env.lookup(selector).data;
  const seen = [];
  for (;;) {
    const conn = getValueAtPath(data, meta.connectionPathInFragmentData);
    seen.push(conn.edges.length);
    const more = direction === 'forward' ? conn.pageInfo.hasNextPage : conn.pageInfo.hasPreviousPage;
    if (!more) break;
    assert.ok(seen.length < 1000, `${product}: the ${direction} walk ends`);
    const cursor = direction === 'forward' ? conn.pageInfo.endCursor : conn.pageInfo.startCursor;
    const pv = getPaginationVariables(direction, PAGE, cursor, selector.variables, {}, meta.paginationMetadata);
    pv[identifierInfo.identifierQueryVariableName] = data[identifierInfo.identifierField];
    await fetchQuery(env, meta.paginationRequest, pv).toPromise();
    data = env.lookup(selector).data;
  }
  // Each load added one page: PAGE more edges, until the last.
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i] - seen[i - 1] === PAGE || (i === seen.length - 1 && seen[i] > seen[i - 1]),
      `${product} ${direction}: edges per load ${seen}`);
  }
  checks++;
  return { env, product, filter, direction, data, selector, productRecord: fragmentRef.__id };
}

// checkPage: the fragment's merged connection (ids, order, every row's
// fields, totalCount, pageInfo) and the ConnectionHandler's record = recount.
function checkPage(env, gen, page, want, byId, name) {
  const conn = page.data.comments;
  const rows = conn.edges.map((e) => env.lookup(getSelector(gen.CommentRow, e.node)).data);
  assert.deepEqual(rows.map((r) => r.id), want.map((c) => c.id), `${name}: merged edges = recount (ids and order)`);
  for (const r of rows) {
    const c = byId.get(r.id);
    assert.deepEqual({ rating: r.rating, language: r.language, author: r.author, title: r.title, product: r.product.id },
      { rating: c.rating, language: c.language, author: c.author, title: c.title, product: c.productId }, `${name}: ${r.id}`);
    assert.equal(Date.parse(r.createdAt), Date.parse(c.createdAt), `${name}: ${r.id} createdAt`);
  }
  assert.equal(conn.totalCount, want.length, `${name}: totalCount`);
  assert.equal(page.data.id, page.product, `${name}: Product.id is the catalog id`);
  const pi = conn.pageInfo;
  if (page.direction === 'forward') assert.equal(pi.hasNextPage, false, `${name}: hasNextPage false at the end`);
  else assert.equal(pi.hasPreviousPage, false, `${name}: hasPreviousPage false at the start`);
  assert.deepEqual(connectionIds(env, page.productRecord, page.filter), want.map((c) => c.id), `${name}: ConnectionHandler's connection = recount`);
  checks += 5 + rows.length;
}

// connectionIds reads a connection record through ConnectionHandler.
function connectionIds(env, productRecord, filter) {
  let ids;
  commitLocalUpdate(env, (store) => {
    const conn = ConnectionHandler.getConnection(store.get(productRecord), 'ProductPage_comments',
      { language: filter.language ?? null, ratings: filter.ratings ?? null });
    assert.ok(conn, `no connection record for ${JSON.stringify(filter)}`);
    ids = conn.getLinkedRecords('edges').map((e) => e.getLinkedRecord('node').getValue('id'));
  });
  return ids;
}

function checkStats(stats, inLanguage, name) {
  assert.equal(stats.total, inLanguage.length, `${name}: stats.total`);
  assert.deepEqual(stats.ratings.map((r) => r.count), [1, 2, 3, 4, 5].map((r) => inLanguage.filter((c) => c.rating === r).length), `${name}: stats.ratings`);
  checks += 2;
}

// refetchProduct refetches a walked product through Query.node with another
// filter, as useRefetchableFragment's refetch does: the same Product record
// (its nodeId), the new filter's first page, and the walked connection kept.
async function refetchProduct(env, gen, page, data) {
  const { refetchableRequest, identifierInfo } = getRefetchMetadata(gen.ProductPage, 'refetch');
  const vars = {
    ...page.selector.variables, first: PAGE, after: null, last: null, before: null, language: 'pt-BR', ratings: null,
    [identifierInfo.identifierQueryVariableName]: page.data[identifierInfo.identifierField],
  };
  const operation = createOperationDescriptor(refetchableRequest, vars);
  env.retain(operation);
  await fetchQuery(env, refetchableRequest, vars).toPromise();
  const ref = env.lookup(operation.fragment).data.node;
  assert.equal(env.getStore().getSource().get(ref.__id).__typename, 'Product', 'node(id: product nodeId) is a Product');
  assert.equal(ref.__id, page.productRecord, 'node(id:) and product(id:) are one record');
  const got = env.lookup(getSelector(gen.ProductPage, ref)).data;
  const want = recount(data, { product: page.product, language: 'pt-BR' });
  assert.equal(got.id, page.product, 'refetched product id');
  assert.deepEqual(got.comments.edges.map((e) => env.lookup(getSelector(gen.CommentRow, e.node)).data.id),
    want.slice(0, PAGE).map((c) => c.id), 'refetched pt-BR page = recount');
  checkStats(got.stats, want, `${page.product} refetched pt-BR`);
  assert.deepEqual(connectionIds(env, page.productRecord, page.filter), recount(data, { product: page.product, ...page.filter }).map((c) => c.id),
    'the walked connection survives the refetch');
  checks += 5;
  log(`refetch ${page.product} through node(id:) with language pt-BR: ok`);
}

// refetchComment refetches the comment whose id is also a product id
// through Query.node: a Comment record apart from that Product's.
async function refetchComment(env, gen, byId) {
  const source = env.getStore().getSource();
  const commentRecord = source.getRecordIDs().find((id) => source.get(id).__typename === 'Comment' && source.get(id).id === COLLIDING);
  const productRecord = source.getRecordIDs().find((id) => source.get(id).__typename === 'Product' && source.get(id).id === COLLIDING);
  assert.ok(commentRecord && productRecord && commentRecord !== productRecord,
    `comment ${COLLIDING} and product ${COLLIDING} are two records (${commentRecord}, ${productRecord})`);
  const { refetchableRequest, identifierInfo } = getRefetchMetadata(gen.CommentRow, 'refetch');
  const vars = { [identifierInfo.identifierQueryVariableName]: commentRecord };
  const operation = createOperationDescriptor(refetchableRequest, vars);
  env.retain(operation);
  await fetchQuery(env, refetchableRequest, vars).toPromise();
  const ref = env.lookup(operation.fragment).data.node;
  assert.equal(source.get(ref.__id).__typename, 'Comment', 'node(id: comment nodeId) is a Comment');
  assert.equal(ref.__id, commentRecord, 'the refetched comment is the walked record');
  const got = env.lookup(getSelector(gen.CommentRow, ref)).data;
  const c = byId.get(COLLIDING);
  assert.deepEqual([got.id, got.rating, got.title, got.product.id], [c.id, c.rating, c.title, c.productId], 'refetched comment = generated');
  assert.equal(source.get(productRecord).__typename, 'Product', 'the product record is still the product');
  checks += 6;
  log(`refetch comment ${COLLIDING} through node(id:), apart from product ${COLLIDING}: ok`);
}

// checkRecords: every normalized Comment record is keyed by its nodeId and
// holds the generated comment; the store holds exactly the comments of the
// walked products (every filter together covers them all) and the two
// products.
function checkRecords(env, data, byId) {
  const source = env.getStore().getSource();
  const comments = [];
  const products = [];
  for (const id of source.getRecordIDs()) {
    const r = source.get(id);
    if (r.__typename === 'Comment') {
      comments.push(r.id);
      assert.equal(id, r.nodeId, `Comment ${r.id}: record key = nodeId`);
      const c = byId.get(r.id);
      assert.ok(c, `Comment ${r.id} was generated`);
      assert.deepEqual([r.rating, r.language, r.author, r.title], [c.rating, c.language, c.author, c.title], `Comment ${r.id} record`);
      assert.equal(Date.parse(r.createdAt), Date.parse(c.createdAt), `Comment ${r.id} createdAt`);
      assert.equal(source.get(r.product.__ref).id, c.productId, `Comment ${r.id} links its product`);
    } else if (r.__typename === 'Product') {
      products.push(r.id);
      assert.equal(id, r.nodeId, `Product ${r.id}: record key = nodeId`);
    }
  }
  const union = new Set(FILTERS.flatMap((f) => PRODUCTS.flatMap((p) => recount(data, { product: p, ...f }).map((c) => c.id))));
  assert.deepEqual(comments.sort(), [...union].sort(), 'Comment records = the comments of every walked filter');
  assert.deepEqual(products.sort(), [...PRODUCTS].sort(), 'Product records = the walked products');
  checks += 2 + comments.length + products.length;
  log(`store: ${comments.length} Comment and ${products.length} Product records = recount`);
}

// checkNodes asks Query.nodes (plain fetch) for record keys from the store
// plus an unknown and a malformed id: same order and length, nulls for those.
async function checkNodes(url, env, byId) {
  const source = env.getStore().getSource();
  const keys = source.getRecordIDs().filter((id) => ['Comment', 'Product'].includes(source.get(id).__typename)).slice(0, 98);
  const ids = [keys[0], 'bm90IGFuIGlk', ...keys.slice(1), '%%%'];
  const { nodes } = await post(url, 'query N($ids: [ID!]!) { nodes(ids: $ids) { __typename nodeId ... on Comment { id rating } ... on Product { id } } }', { ids });
  assert.equal(nodes.length, ids.length, 'nodes: one entry per id');
  ids.forEach((id, i) => {
    const r = source.get(id);
    if (!r) return assert.equal(nodes[i], null, `nodes[${i}] (${id}) is null`);
    assert.deepEqual(nodes[i], r.__typename === 'Comment'
      ? { __typename: 'Comment', nodeId: id, id: r.id, rating: byId.get(r.id).rating }
      : { __typename: 'Product', nodeId: id, id: r.id }, `nodes[${i}]`);
  });
  checks += 1 + ids.length;
  log(`nodes(ids:) of ${ids.length} ids (2 not ids): order and nulls ok`);
}

// generate makes the test's comments: a seeded generator, so every run
// loads the same data; three languages, skewed ratings, some comments at
// the same instant (ordered by id), some with fractional seconds.
function generate() {
  let seed = 20240501;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const langs = ['en', 'en', 'de', 'pt-BR'];
  const ratings = [5, 5, 5, 4, 4, 3, 2, 1];
  const out = [];
  let t = Date.parse('2025-01-01T00:00:00Z');
  PRODUCTS.forEach((productId, p) => {
    for (let k = 0; k < 70 + 25 * p; k++) {
      if (rand() > 0.15) t += Math.floor(rand() * 3_600_000) + (rand() < 0.2 ? 500 : 0);
      out.push({
        id: `${productId}-${String(Math.floor(rand() * 1e6)).padStart(6, '0')}-${k}`,
        productId, language: langs[Math.floor(rand() * langs.length)], rating: ratings[Math.floor(rand() * ratings.length)],
        author: `author ${k % 9}`, title: `title ${k} of ${productId}`, body: `body ${k}`, createdAt: new Date(t).toISOString(),
      });
    }
  });
  out.push({ id: COLLIDING, productId: 'tea-kettle', language: 'de', rating: 1, author: 'colliding', title: 'my id is a product id', body: 'b', createdAt: '2025-01-02T00:00:00Z' });
  return out;
}

// recount filters and orders in JS: createdAt descending, then id descending.
function recount(data, { product, language, ratings }) {
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return data.filter((c) => c.productId === product && (language == null || c.language === language)
    && (ratings == null || ratings.includes(c.rating)))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || cmp(b.id, a.id));
}

function post(url, query, variables) {
  requests++;
  return postGraphQL(url, query, variables, REQUEST_MS);
}

const failed = await runBounded({ main, deadlineMs: DEADLINE_MS, cleanups, prefix: 'relay' });
const secs = ((Date.now() - started) / 1000).toFixed(1);
console.log(failed
  ? `relay: FAIL (relay-compiler + relay-runtime, after ${checks} checks, ${secs} s)`
  : `relay: PASS relay-compiler (no warnings) + relay-runtime: ${PRODUCTS.length} products × ${FILTERS.length} filters, paged forward and backward through ConnectionHandler, node refetches, ${requests} requests, ${checks} checks against the generated data (${secs} s)`);
process.exit(failed ? 1 : 0);
