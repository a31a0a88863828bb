// Client test: builds and starts the gateway on 127.0.0.1 with a fresh bolt
// store (demo data), exactly as browser.mjs does, then pages through
// Product.comments with Apollo Client the way a front end does: an
// InMemoryCache with relayStylePagination(["language", "ratings"]) on
// Product.comments and fetchMore. For each product and filter it walks every
// page forward (first: 20 / after: endCursor) and backward (last: 20 /
// before: startCursor) and compares the ids, their order, the cached merged
// list, totalCount and stats with a recount: the product's unfiltered list
// (first: 100 pages, plain fetch, no client) filtered and sorted here in JS.
// Then urql (e2e/urql.mjs) walks the same filters forward with Graphcache's
// relayPagination.
// Prints one PASS/FAIL line; exits non-zero on any mismatch.
//
//   web/test.sh  (npm ci in web/ + browser.mjs + this script)
//   node web/e2e/client.mjs   (after npm ci in web/)
//   env: GATEWAY_BIN (skip go build)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { ApolloClient, InMemoryCache, HttpLink, gql } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { launchGateway, postGraphQL, runBounded } from './gateway.mjs';
import { newUrqlClient, walkForward, badArgumentLosesOnlyItsField } from './urql.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'gw-client-'));
const cleanups = [() => rmSync(tmp, { recursive: true, force: true })];
const log = (...a) => console.log('client:', ...a);
const started = Date.now();
const DEADLINE_MS = 900_000; // a hang guard for the whole run, build included (Apollo alone takes 250-340 s on a loaded 2-core machine)
const REQUEST_MS = 30_000; // one HTTP request

const PRODUCTS = ['espresso-machine', 'bread-maker'];
const FILTERS = [
  {},
  { language: 'de' },
  { ratings: [1, 2] },
  { ratings: [1, 3, 5], language: 'en' },
  { ratings: [5] },
];
const PAGE = 20;
const URQL_PAGE = 100; // urql walks with the largest page: the Apollo walks cover small pages
let checks = 0; // assertions passed, for the summary
let pagesFetched = 0;
let urqlPages = 0;

async function main() {
  // 1. The gateway, as browser.mjs starts it.
  const base = await launchGateway({ tmp, flags: ['-open-mutations'], log, cleanups });
  log('gateway at', base);
  const uri = `${base}/graphql`;

  // 2. Two Apollo clients, one per direction, each with its own normalized
  // cache: a forward walk and a backward walk of the same filter share the
  // field's cache key (keyArgs), so one cache would hold only one of them.
  const forward = newClient(uri);
  const backward = newClient(uri);

  for (const product of PRODUCTS) {
    const all = await recountSource(uri, product);
    log(`${product}: ${all.length} comments (recount source)`);
    assert.ok(all.length > PAGE * 2, `${product}: enough demo comments to page through`);
    for (const filter of FILTERS) {
      await checkFilter({ forward, backward, uri, product, filter, all });
    }
  }

  // 3. urql (Graphcache, relayPagination): every filter forward, and an
  // error that loses only its field.
  log(`Apollo done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const urql = newUrqlClient(uri, REQUEST_MS);
  for (const product of PRODUCTS) {
    const all = await recountSource(uri, product);
    for (const filter of FILTERS) {
      const name = label(product, filter);
      urqlPages += await walkForward(urql, { product, filter, pageSize: URQL_PAGE, wantIds: recount(all, filter).map((c) => c.id), name });
      checks++;
    }
  }
  await badArgumentLosesOnlyItsField(urql, PRODUCTS[0]);
  checks++;
  log(`urql: ${PRODUCTS.length} products × ${FILTERS.length} filters forward, ${urqlPages} pages: ok`);

  // 4. Every filter's merged list is still in the forward cache, intact:
  // keyArgs ["language", "ratings"] keeps the filters apart.
  for (const product of PRODUCTS) {
    const all = await recountSource(uri, product);
    for (const filter of FILTERS) {
      const cached = forward.readQuery({ query: COMMENTS, variables: { id: product, ...filter, first: PAGE } });
      assert.deepEqual(cached.product.comments.edges.map((e) => e.node.id), recount(all, filter).map((c) => c.id),
        `${label(product, filter)}: cached list intact after the other filters`);
      checks++;
    }
  }
}

function newClient(uri) {
  return new ApolloClient({
    link: new HttpLink({
      uri,
      fetch: (url, opts = {}) => fetch(url, {
        ...opts,
        signal: opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(REQUEST_MS)]) : AbortSignal.timeout(REQUEST_MS),
      }),
    }),
    cache: new InMemoryCache({
      typePolicies: { Product: { fields: { comments: relayStylePagination(['language', 'ratings']) } } },
    }),
  });
}

const COMMENTS = gql`
  query Comments($id: ID!, $language: String, $ratings: [Int!], $first: Int, $after: String, $last: Int, $before: String) {
    product(id: $id) {
      id
      comments(language: $language, ratings: $ratings, first: $first, after: $after, last: $last, before: $before) {
        totalCount
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { id language rating createdAt } }
      }
    }
  }`;

// Subscribes to an ObservableQuery as a mounted component would. .first
// settles with its first complete result (the first page, fetched once) or
// error; .settled(n) waits (up to 5 s) for an emitted result with n edges,
// since the cache broadcasts merged results asynchronously.
function subscribe(oq) {
  let ok;
  let fail;
  let latest;
  let waiter = () => {};
  const first = new Promise((res, rej) => { ok = res; fail = rej; });
  const sub = oq.subscribe({
    next(r) {
      if (r.error) fail(r.error);
      else if (!r.loading && r.data?.product) { latest = r; ok(r); waiter(); }
    },
    error: (e) => fail(e),
  });
  const settled = (n) => new Promise((res) => {
    const timer = setTimeout(() => res(latest), 5_000);
    waiter = () => {
      if (latest.data.product.comments.edges.length === n) { clearTimeout(timer); res(latest); }
    };
    waiter();
  });
  return { first, settled, unsubscribe: () => sub.unsubscribe() };
}

const label = (product, f) => `${product} ${JSON.stringify(f)}`;

async function checkFilter({ forward, backward, uri, product, filter, all }) {
  const name = label(product, filter);
  const want = recount(all, filter);
  const wantIds = want.map((c) => c.id);
  assert.ok(want.length > PAGE, `${name}: more than one page in the recount (${want.length})`);

  // Forward: the first page through watchQuery, then fetchMore({ after }).
  const fw = forward.watchQuery({ query: COMMENTS, variables: { id: product, ...filter, first: PAGE } });
  const sub = subscribe(fw); // keeps it active, as a mounted component would
  try {
    let page = (await sub.first).data.product.comments;
    pagesFetched++;
    const fwIds = page.edges.map((e) => e.node.id);
    assert.equal(page.totalCount, want.length, `${name}: totalCount = recount`);
    checks++;
    while (page.pageInfo.hasNextPage) {
      assert.equal(page.edges.length, PAGE, `${name}: a full page before the last`);
      assert.equal(page.pageInfo.endCursor, page.edges.at(-1).cursor, `${name}: endCursor = last edge's cursor`);
      const res = await fw.fetchMore({ variables: { after: page.pageInfo.endCursor } });
      pagesFetched++;
      page = res.data.product.comments;
      fwIds.push(...page.edges.map((e) => e.node.id));
      assert.ok(fwIds.length <= want.length + PAGE, `${name}: the forward walk ends`);
    }
    assert.deepEqual(fwIds, wantIds, `${name}: forward pages = recount (ids and order)`);
    checks++;
    // The cache merged the pages into one list: what it holds, and what the
    // watching "component" last received (what a UI would render).
    const merged = forward.readQuery({ query: COMMENTS, variables: { id: product, ...filter, first: PAGE } }).product.comments;
    assert.deepEqual(merged.edges.map((e) => e.node.id), wantIds, `${name}: cached merged list = recount`);
    const shown = (await sub.settled(want.length)).data.product.comments;
    assert.deepEqual(shown.edges.map((e) => e.node.id), wantIds, `${name}: watched query's merged list = recount`);
    checks++;
    assert.equal(merged.pageInfo.hasNextPage, false, `${name}: cached hasNextPage false at the end`);
    assert.equal(merged.totalCount, want.length, `${name}: cached totalCount`);
    checks += 3;
    const byId = new Map(want.map((c) => [c.id, c]));
    for (const e of merged.edges) {
      const c = byId.get(e.node.id);
      assert.equal(e.node.rating, c.rating, `${name}: ${c.id} rating`);
      assert.equal(e.node.language, c.language, `${name}: ${c.id} language`);
      assert.equal(e.node.createdAt, c.createdAt, `${name}: ${c.id} createdAt`);
    }
    checks++;
  } finally {
    sub.unsubscribe();
  }

  // Backward: last: 20 (the oldest page), then fetchMore({ before }).
  const bw = backward.watchQuery({ query: COMMENTS, variables: { id: product, ...filter, last: PAGE } });
  const bsub = subscribe(bw);
  try {
    let page = (await bsub.first).data.product.comments;
    pagesFetched++;
    const pages = [page.edges.map((e) => e.node.id)];
    assert.equal(page.totalCount, want.length, `${name}: totalCount = recount (backward)`);
    assert.deepEqual(pages[0], wantIds.slice(-PAGE), `${name}: last: ${PAGE} = the oldest ${PAGE}, newest first`);
    checks += 2;
    let n = page.edges.length;
    while (page.pageInfo.hasPreviousPage) {
      assert.equal(page.edges.length, PAGE, `${name}: a full page before the first`);
      assert.equal(page.pageInfo.startCursor, page.edges[0].cursor, `${name}: startCursor = first edge's cursor`);
      const res = await bw.fetchMore({ variables: { before: page.pageInfo.startCursor } });
      pagesFetched++;
      page = res.data.product.comments;
      pages.unshift(page.edges.map((e) => e.node.id));
      n += page.edges.length;
      assert.ok(n <= want.length + PAGE, `${name}: the backward walk ends`);
    }
    assert.deepEqual(pages.flat(), wantIds, `${name}: backward pages, in order = recount (ids and order)`);
    const merged = backward.readQuery({ query: COMMENTS, variables: { id: product, ...filter, last: PAGE } }).product.comments;
    assert.deepEqual(merged.edges.map((e) => e.node.id), wantIds, `${name}: cached merged list (backward) = recount`);
    const shown = (await bsub.settled(want.length)).data.product.comments;
    assert.deepEqual(shown.edges.map((e) => e.node.id), wantIds, `${name}: watched query's merged list (backward) = recount`);
    checks++;
    assert.equal(merged.pageInfo.hasPreviousPage, false, `${name}: cached hasPreviousPage false at the start`);
    checks += 3;
  } finally {
    bsub.unsubscribe();
  }

  // Stats: counts per rating (in the filter's language, or all) = recount.
  const stats = (await plain(uri, `query S($id: ID!, $l: String) { product(id: $id) {
      stats(language: $l) { total ratings { rating count } } } }`,
  { id: product, l: filter.language ?? null })).product.stats;
  const inLang = recount(all, { language: filter.language });
  assert.equal(stats.total, inLang.length, `${name}: stats.total = recount`);
  assert.deepEqual(stats.ratings, [1, 2, 3, 4, 5].map((r) => ({ rating: r, count: inLang.filter((c) => c.rating === r).length })),
    `${name}: stats.ratings = recount`);
  const fromStats = stats.ratings.filter((r) => !filter.ratings || filter.ratings.includes(r.rating))
    .reduce((s, r) => s + r.count, 0);
  assert.equal(fromStats, want.length, `${name}: stats of the filter's ratings = recount`);
  checks += 3;
  log(`${name}: ${want.length} comments, ${Math.ceil(want.length / PAGE)} pages each way: ok`);
}

// The recount's source: the product's whole unfiltered list, read with plain
// fetch (no client, no cache) in pages of 100. Memoized per product.
const sources = new Map();
async function recountSource(uri, product) {
  if (sources.has(product)) return sources.get(product);
  const list = [];
  let after = null;
  for (;;) {
    const c = (await plain(uri, `query All($id: ID!, $after: String) { product(id: $id) {
        comments(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { id language rating createdAt } } } }`,
    { id: product, after })).product.comments;
    list.push(...c.nodes);
    if (!c.pageInfo.hasNextPage) break;
    after = c.pageInfo.endCursor;
    assert.ok(list.length < 1_000_000, 'the unfiltered walk ends');
  }
  assert.equal(new Set(list.map((c) => c.id)).size, list.length, `${product}: no comment twice in the unfiltered list`);
  const { total } = (await plain(uri, 'query T($id: ID!) { product(id: $id) { stats { total } } }', { id: product })).product.stats;
  assert.equal(list.length, total, `${product}: unfiltered list = stats.total`);
  checks += 2;
  sources.set(product, list);
  return list;
}

// Filter and order in JS: createdAt descending, then id descending.
function recount(all, { language, ratings } = {}) {
  return all.filter((c) => (language == null || c.language === language)
    && (ratings == null || ratings.includes(c.rating)))
    .sort((a, b) => cmp(timeKey(b.createdAt), timeKey(a.createdAt)) || cmp(b.id, a.id));
}
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
// RFC 3339 in UTC with optional fractional seconds -> a string that sorts as
// the instant does (fractions padded to nanoseconds).
function timeKey(t) {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(t);
  assert.ok(m, `createdAt in UTC: ${t}`);
  return `${m[1]}.${(m[2] || '').padEnd(9, '0')}`;
}

function plain(uri, query, variables) {
  return postGraphQL(uri, query, variables, REQUEST_MS);
}

const failed = await runBounded({ main, deadlineMs: DEADLINE_MS, cleanups, prefix: 'client' });
const secs = ((Date.now() - started) / 1000).toFixed(1);
console.log(failed
  ? `client: FAIL (Apollo Client and urql, after ${checks} checks, ${secs} s)`
  : `client: PASS Apollo Client relay-style paging: ${PRODUCTS.length} products × ${FILTERS.length} filters, forward and backward, ${pagesFetched} pages; urql Graphcache relayPagination forward, ${urqlPages} pages; ${checks} checks against the recount (${secs} s)`);
process.exit(failed ? 1 : 0);
