// Browser test: builds and starts the gateway on 127.0.0.1 with a fresh bolt
// store (demo data), then drives Debian's Chromium through playwright-core:
// GraphiQL runs its default query; /demo filters, pages and shows what the
// API's stats say. Fails on any request to another host, any CSP violation
// or page error. Screenshots go to artifacts/ (UPDATE_DOCS=1: docs/demo.png).
//
//   web/test.sh      (npm ci in web/ + this script)
//   env: CHROMIUM (default /usr/bin/chromium), GATEWAY_BIN (skip go build)
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { launchGateway, root } from './gateway.mjs';
import { assertContrast } from './contrast.mjs';
import { launchChromium } from './chromium.mjs';

const artifacts = join(root, 'artifacts');
mkdirSync(artifacts, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'gw-browser-'));
const cleanups = [() => rmSync(tmp, { recursive: true, force: true })];
const log = (...a) => console.log('browser:', ...a);
const problems = []; // foreign requests, CSP violations, page errors
let failed = false;

async function main() {
  // 1. The gateway.
  const base = await launchGateway({ tmp, flags: ['-open-mutations', '-graphiql', '-introspection', '-open-explain'], log, cleanups });
  log('gateway at', base);

  // 2. Chromium, fresh profile, nothing but loopback.
  const { context, page } = await launchChromium({ tmp, base, problems, cleanups });
  cleanups.unshift(async () => {
    if (failed) await page.screenshot({ path: join(artifacts, 'browser-failure.png') });
  });
  page.on('response', async (r) => {
    if (r.status() >= 400) {
      problems.push(`HTTP ${r.status()} ${r.url()} ${(r.request().postData() || '').slice(0, 80)}: ${(await r.text().catch(() => '')).slice(0, 300)}`);
    }
  });

  await testGraphiQL(page, base);
  await testGraphiQLSubscription(page, base);
  assert.deepEqual(problems, [], 'GraphiQL: no foreign requests, CSP violations or errors');
  await testDemo(page, base);
  assert.deepEqual(problems, [], 'demo: no foreign requests, CSP violations or errors');
  await testDemoURLState(page, base);
  assert.deepEqual(problems, [], 'demo URL state: no foreign requests, CSP violations or errors');
  await testDemoPhone(context, base);
  assert.deepEqual(problems, [], 'demo on a phone: no foreign requests, CSP violations or errors');
  await testDemoLive(page, base);
  assert.deepEqual(problems, [], 'demo live: no foreign requests, CSP violations or errors');
  log('PASS');
}

async function gql(base, query, variables) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  assert.ok(!body.errors, JSON.stringify(body.errors));
  return body.data;
}

async function testGraphiQL(page, base) {
  log('GraphiQL');
  const res = await page.goto(`${base}/`);
  assert.match(res.headers()['content-security-policy'] || '', /default-src 'self'/,
    'no CSP at /: is web.Register (package web) mounted in server.go?');
  // The editor shows the default query once Monaco has started.
  await page.locator('.graphiql-query-editor').getByText('bread-maker').first().waitFor({ timeout: 30_000 });
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${base}/graphql`
      && (r.request().postData() || '').includes('ProductComments')),
    page.locator('.graphiql-execute-button').click(),
  ]);
  assert.equal(response.request().headers()['x-explain'], '1', 'the header preset is sent');
  const body = await response.json();
  assert.ok(!body.errors, JSON.stringify(body.errors));
  const comments = body.data.product.comments;
  assert.ok(comments.totalCount > 0 && comments.edges.length === 5, 'default query returns comments');
  assert.ok(body.extensions?.plan?.length, 'X-Explain preset yields extensions.plan');
  // ...and the result pane shows it.
  await page.waitForFunction(() => {
    const text = document.querySelector('.graphiql-response .view-lines')?.textContent || '';
    return text.includes('"data"') && text.includes('"bread-maker"');
  });
  await page.screenshot({ path: join(artifacts, 'graphiql.png') });

  // The schema loaded (it used to fail with "Decorated type deeper than
  // introspection query"): the docs pane lists the root types...
  await page.locator('button[aria-label="Show Documentation Explorer"]').click();
  const docs = page.locator('.graphiql-doc-explorer');
  for (const type of ['Query', 'Mutation']) {
    await docs.getByText(type, { exact: true }).first().waitFor({ timeout: 30_000 });
  }
  await docs.getByText('Query', { exact: true }).first().click();
  await docs.getByText('topProducts').first().waitFor();
  await page.screenshot({ path: join(artifacts, 'graphiql-docs.png') });
  // ...and the editor completes field names from it.
  const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('{ topPro');
  await page.keyboard.press('Control+Space');
  const suggestion = page.locator('.suggest-widget .monaco-list-row').filter({ hasText: 'topProducts' });
  await suggestion.first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(artifacts, 'graphiql-autocomplete.png') });
  log('GraphiQL: docs pane lists Query and Mutation; autocomplete suggests topProducts');
}

const starsName = (n) => (n === 1 ? '1 star' : `${n} stars`);

// assertRatingToggle: the rating's toggle button is named for screen
// readers by its rating and count ("5 stars, 2,925 comments").
async function assertRatingToggle(page, rating, count) {
  const name = `${starsName(rating)}, ${count.toLocaleString('en-US')} comments`;
  assert.equal(await page.getByRole('button', { name, exact: true }).count(), 1, `a toggle named "${name}"`);
}

// A subscription typed into GraphiQL runs over graphql-ws: a comment
// created meanwhile shows in the response pane.
async function testGraphiQLSubscription(page, base) {
  log('GraphiQL subscription');
  await page.locator('.graphiql-query-editor .monaco-editor').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText('subscription Live { commentAdded(productId: "bread-maker") { title rating } }');
  await page.locator('.graphiql-execute-button').click();
  const title = `live-from-GraphiQL-${Date.now()}`; // no blanks: Monaco shows them as U+00A0
  // The websocket may still be connecting: create until one arrives.
  for (let i = 0; i < 60; i++) {
    await gql(base, 'mutation($t: String!) { createComment(input: {productId: "bread-maker", language: "en", rating: 5, author: "e2e", title: $t, body: "b"}) { comment { id } } }', { t: title });
    const shown = await page.evaluate((t) => (document.querySelector('.graphiql-response .view-lines')?.textContent || '').includes(t), title);
    if (shown) {
      await page.screenshot({ path: join(artifacts, 'graphiql-subscription.png') });
      await page.locator('.graphiql-execute-button').click(); // stop
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('GraphiQL: the subscription showed no new comment within 30 s');
}

// The demo follows its product live: a comment created elsewhere shows up
// with the new total, under a "live" indicator; leaving the page ends the
// stream without an error.
async function testDemoLive(page, base) {
  log('demo live');
  const product = `live-demo-${Date.now()}`;
  await page.goto(`${base}/demo?product=${product}`);
  await page.locator('#live[data-status="live"]').waitFor({ timeout: 30_000 });
  const title = `arrived-live-${Date.now()}`;
  await gql(base, 'mutation($p: ID!, $t: String!) { createComment(input: {productId: $p, language: "en", rating: 4, author: "e2e", title: $t, body: "b"}) { comment { id } } }', { p: product, t: title });
  await page.locator('#comments li', { hasText: title }).waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector('#summary')?.dataset.totalCount === '1');
  await page.screenshot({ path: join(artifacts, 'demo-live.png') });
  await page.goto('about:blank');
}

async function testDemo(page, base) {
  log('demo');
  const product = 'bread-maker';
  const STATS = `query S($id: ID!, $l: String) { product(id: $id) {
    stats(language: $l) { total ratings { rating count } } languages { language total } } }`;
  const all = (await gql(base, STATS, { id: product })).product;
  const countOf = (stats, ratings) => stats.ratings.filter((r) => ratings.includes(r.rating))
    .reduce((n, r) => n + r.count, 0);

  const res = await page.goto(`${base}/demo?product=${product}`);
  assert.match(res.headers()['content-security-policy'] || '', /default-src 'self'/);
  await page.locator('#comments li').first().waitFor();
  const shown = async () => ({
    total: Number(await page.locator('#summary').getAttribute('data-total-count')),
    ids: await page.locator('#comments li').evaluateAll((els) => els.map((e) => e.dataset.id)),
    ratings: await page.locator('#comments li').evaluateAll((els) => els.map((e) => Number(e.dataset.rating))),
    languages: await page.locator('#comments li').evaluateAll((els) => els.map((e) => e.dataset.language)),
    created: await page.locator('#comments li').evaluateAll((els) => els.map((e) => e.dataset.createdAt)),
  });
  const act = async (fn) => {
    const before = await page.evaluate(() => document.body.dataset.loaded);
    await fn();
    await page.waitForFunction((b) => document.body.dataset.loaded !== b, before);
  };
  const newestFirst = (v) => v.created.every((c, i) => i === 0 || v.created[i - 1] >= c);

  let v = await shown();
  assert.equal(v.total, all.stats.total, 'all comments: totalCount = stats.total');
  assert.ok(newestFirst(v), 'newest first');
  assert.equal(await page.locator('#plan [data-fact="strategy"]').count(), 1, 'plan shown');
  for (const { rating, count } of all.stats.ratings) {
    await assertRatingToggle(page, rating, count);
  }

  // Rating 5 off.
  await act(() => page.locator('#ratings [data-rating="5"]').click());
  v = await shown();
  assert.equal(v.total, countOf(all.stats, [1, 2, 3, 4]), 'ratings 1-4: totalCount');
  assert.ok(v.ratings.every((r) => r <= 4));

  // A language: the second one listed (languages come in tag order).
  const language = all.languages[1].language;
  await act(() => page.locator('#language').selectOption(language));
  const langStats = (await gql(base, STATS, { id: product, l: language })).product.stats;
  v = await shown();
  assert.equal(v.total, countOf(langStats, [1, 2, 3, 4]), `${language}, ratings 1-4: totalCount`);
  assert.ok(v.languages.every((l) => l === language));
  for (const { rating, count } of langStats.ratings) {
    await assertRatingToggle(page, rating, count);
  }
  // Rating 1 off too.
  await act(() => page.locator('#ratings [data-rating="1"]').click());
  const expected = countOf(langStats, [2, 3, 4]);
  v = await shown();
  assert.equal(v.total, expected, `${language}, ratings 2-4: totalCount`);
  assert.ok(expected > 20, 'enough comments to page through');
  await page.screenshot({ path: join(artifacts, 'demo.png'), fullPage: true });
  if (process.env.UPDATE_DOCS) await page.screenshot({ path: join(root, 'docs', 'demo.png') });

  // Forward twice, back twice: the same pages, no overlap, newest first.
  const p1 = await shown();
  await act(() => page.locator('#next').click());
  const p2 = await shown();
  await act(() => page.locator('#next').click());
  const p3 = await shown();
  for (const p of [p1, p2, p3]) {
    assert.ok(p.ratings.every((r) => r >= 2 && r <= 4) && p.languages.every((l) => l === language));
    assert.ok(newestFirst(p));
  }
  const seen = [...p1.ids, ...p2.ids, ...p3.ids];
  assert.equal(new Set(seen).size, seen.length, 'pages do not overlap');
  assert.ok(p1.created.at(-1) >= p2.created[0] && p2.created.at(-1) >= p3.created[0], 'pages in order');
  await act(() => page.locator('#prev').click());
  assert.deepEqual((await shown()).ids, p2.ids, 'Previous returns page 2');
  await act(() => page.locator('#prev').click());
  assert.deepEqual((await shown()).ids, p1.ids, 'Previous returns page 1');
  assert.ok(await page.locator('#prev').isDisabled(), 'no Previous on page 1');
  assert.match(await page.locator('#page').innerText(), /^Page 1 of /);
  await page.screenshot({ path: join(artifacts, 'demo-paged.png'), fullPage: true });
}

// afterLoad waits for the demo's next finished load after fn.
async function afterLoad(page, fn) {
  const before = await page.evaluate(() => document.body.dataset.loaded);
  await fn();
  await page.waitForFunction((b) => document.body.dataset.loaded !== b, before);
}

// openDemo opens url and waits for the demo's first finished load.
async function openDemo(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.loaded);
}

// testDemoURLState: the filters and the page live in the URL: a shared link
// opens the same view, the back button returns to the previous one, and no
// selected rating says so.
async function testDemoURLState(page, base) {
  log('demo: URL state, back button, names, contrast');
  const ids = () => page.locator('#comments li').evaluateAll((els) => els.map((e) => e.dataset.id));
  await openDemo(page, `${base}/demo?product=bread-maker`);
  const all = await ids();
  await afterLoad(page, () => page.locator('#ratings [data-rating="5"]').click());
  assert.equal(new URL(page.url()).searchParams.get('ratings'), '1,2,3,4', 'ratings in the URL');
  const four = await ids();
  await afterLoad(page, () => page.locator('#next').click());
  const url2 = new URL(page.url());
  assert.equal(url2.searchParams.get('page'), '2');
  assert.ok(url2.searchParams.get('after'), 'the page cursor in the URL');
  const page2 = await ids();
  // Back: page 1 of ratings 1-4, then all ratings.
  await afterLoad(page, () => page.goBack());
  assert.deepEqual(await ids(), four, 'back returns to page 1');
  assert.equal(await page.locator('#ratings [data-rating="5"]').getAttribute('aria-pressed'), 'false');
  await afterLoad(page, () => page.goBack());
  assert.deepEqual(await ids(), all, 'back returns to all ratings');
  assert.equal(await page.locator('#ratings [data-rating="5"]').getAttribute('aria-pressed'), 'true');
  await afterLoad(page, () => page.goForward());
  await afterLoad(page, () => page.goForward());
  assert.deepEqual(await ids(), page2, 'forward returns to page 2');
  // A shared link opens the same view.
  await openDemo(page, url2.href);
  assert.deepEqual(await ids(), page2, 'the URL alone shows page 2');
  assert.match(await page.locator('#page').innerText(), /^Page 2 of /);
  // Every star rating in the list has a text name.
  const names = await page.locator('#comments .stars').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  assert.ok(names.length > 0 && names.every((n) => /^[1-5] stars? of 5$/.test(n)), `star names: ${names}`);
  await assertContrast(page);
  // No rating selected: an explicit message, no comments.
  for (const r of [1, 2, 3, 4]) {
    await afterLoad(page, () => page.locator(`#ratings [data-rating="${r}"]`).click());
  }
  assert.match(await page.locator('#summary').innerText(), /^No rating selected/);
  assert.equal(await page.locator('#comments li').count(), 0);
  assert.equal(new URL(page.url()).searchParams.get('ratings'), '');
  await page.screenshot({ path: join(artifacts, 'demo-no-rating.png'), fullPage: true });
}

// testDemoPhone: at a phone's 390 px nothing is wider than the viewport (no
// horizontal scrolling), and after Next the list is scrolled into view.
async function testDemoPhone(context, base) {
  log('demo: phone (390 px)');
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await openDemo(page, `${base}/demo?product=bread-maker`);
  const overflow = () => page.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((e) => `${e.tagName}#${e.id}.${e.className} right=${Math.round(e.getBoundingClientRect().right)}`);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, wide };
  });
  let o = await overflow();
  assert.deepEqual(o.wide, [], 'no element wider than the 390 px viewport');
  assert.ok(o.scrollWidth <= o.innerWidth, `no horizontal scroll: scrollWidth ${o.scrollWidth}`);
  await page.screenshot({ path: join(artifacts, 'demo-phone.png'), fullPage: true });
  await page.locator('#next').scrollIntoViewIfNeeded();
  await afterLoad(page, () => page.locator('#next').click());
  const top = await page.locator('#list').evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(top >= -1 && top < 50, `after Next the list is in view (its top at ${top}px)`);
  o = await overflow();
  assert.deepEqual(o.wide, [], 'page 2: no element wider than the viewport');
  await page.screenshot({ path: join(artifacts, 'demo-phone-next.png') });
  await page.close();
}

try {
  await main();
} catch (err) {
  failed = true;
  console.error('browser: FAIL', err);
} finally {
  for (const fn of cleanups) {
    try { await fn(); } catch { /* already gone */ }
  }
}
process.exit(failed ? 1 : 0);
