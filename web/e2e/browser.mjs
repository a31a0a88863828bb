// Browser test: builds and starts the gateway on 127.0.0.1 with a fresh bolt
// store (demo data), then drives Debian's Chromium through playwright-core:
// GraphiQL runs its default query; /demo (the reviews widget) filters, loads
// more and shows what the API's stats say. Fails on any request to another host, any CSP violation
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

// assertRatingToggle: the rating's bar (a toggle that filters) is named for
// screen readers by its rating and count ("5 stars, 2,925 reviews").
async function assertRatingToggle(page, rating, count) {
  const name = `${starsName(rating)}, ${count.toLocaleString('en-US')} ${count === 1 ? 'review' : 'reviews'}`;
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
  await page.locator('#reviews .cw-review', { hasText: title }).waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector('#reviews .cw-status')?.dataset.totalCount === '1');
  await page.screenshot({ path: join(artifacts, 'demo-live.png') });
  await page.goto('about:blank');
}

// shown reads what the widget shows: totalCount, and its reviews' ids,
// ratings, languages and dates.
async function shown(page) {
  const reviews = page.locator('#reviews .cw-review');
  return {
    total: Number(await page.locator('#reviews .cw-status').getAttribute('data-total-count')),
    ids: await reviews.evaluateAll((els) => els.map((e) => e.dataset.id)),
    ratings: await reviews.evaluateAll((els) => els.map((e) => Number(e.dataset.rating))),
    languages: await reviews.evaluateAll((els) => els.map((e) => e.dataset.language)),
    created: await reviews.evaluateAll((els) => els.map((e) => e.dataset.createdAt)),
  };
}

const newestFirst = (v) => v.created.every((c, i) => i === 0 || v.created[i - 1] >= c);

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
  await page.waitForFunction(() => document.querySelector('#reviews')?.dataset.loaded);

  let v = await shown(page);
  assert.equal(v.total, all.stats.total, 'all comments: totalCount = stats.total');
  assert.ok(newestFirst(v), 'newest first');
  for (const { rating, count } of all.stats.ratings) {
    await assertRatingToggle(page, rating, count);
  }
  // The plan is for developers: hidden until the Developer toggle opens it.
  assert.equal(await page.locator('#reviews .cw-plan').isVisible(), false, 'no plan for shoppers');
  await page.getByRole('button', { name: 'Developer' }).click();
  await page.locator('#reviews .cw-plan [data-fact="strategy"]').waitFor();

  // The 5-star bar: rating 5 only.
  await afterLoad(page, () => page.locator('#reviews .cw-bar[data-rating="5"]').click());
  v = await shown(page);
  assert.equal(v.total, countOf(all.stats, [5]), 'rating 5: totalCount');
  assert.ok(v.ratings.every((r) => r === 5));

  // A language: the second one listed (languages come in tag order).
  const language = all.languages[1].language;
  await afterLoad(page, () => page.getByLabel('Language', { exact: true }).selectOption(language));
  const langStats = (await gql(base, STATS, { id: product, l: language })).product.stats;
  v = await shown(page);
  assert.equal(v.total, countOf(langStats, [5]), `${language}, rating 5: totalCount`);
  assert.ok(v.languages.every((l) => l === language));
  for (const { rating, count } of langStats.ratings) {
    await assertRatingToggle(page, rating, count);
  }
  // The 2-, 3- and 4-star bars too, and 5 off.
  for (const r of [2, 3, 4, 5]) {
    await afterLoad(page, () => page.locator(`#reviews .cw-bar[data-rating="${r}"]`).click());
  }
  const expected = countOf(langStats, [2, 3, 4]);
  v = await shown(page);
  assert.equal(v.total, expected, `${language}, ratings 2-4: totalCount`);
  assert.ok(expected > 20, 'enough comments to load more');
  await page.screenshot({ path: join(artifacts, 'demo.png'), fullPage: true });
  if (process.env.UPDATE_DOCS) await page.screenshot({ path: join(root, 'docs', 'demo.png') });

  // Load more twice: the list grows, in order, no review twice.
  const p1 = await shown(page);
  await afterLoad(page, () => page.getByRole('button', { name: 'Load more reviews' }).click());
  const p2 = await shown(page);
  await afterLoad(page, () => page.getByRole('button', { name: 'Load more reviews' }).click());
  const p3 = await shown(page);
  assert.deepEqual(p2.ids.slice(0, p1.ids.length), p1.ids, 'Load more keeps the first page');
  assert.deepEqual(p3.ids.slice(0, p2.ids.length), p2.ids, 'and the second');
  assert.ok(p1.ids.length < p2.ids.length && p2.ids.length < p3.ids.length, 'the list grows');
  assert.ok(p3.ratings.every((r) => r >= 2 && r <= 4) && p3.languages.every((l) => l === language));
  assert.ok(newestFirst(p3), 'newest first across pages');
  assert.equal(new Set(p3.ids).size, p3.ids.length, 'no review twice');
  assert.match(await page.locator('#reviews .cw-status').innerText(), new RegExp(`^Showing ${p3.ids.length} of `));
  await page.screenshot({ path: join(artifacts, 'demo-more.png'), fullPage: true });
}

// afterLoad waits for the widget's next finished load after fn.
async function afterLoad(page, fn) {
  const before = await page.evaluate(() => document.querySelector('#reviews').dataset.loaded);
  await fn();
  await page.waitForFunction((b) => document.querySelector('#reviews').dataset.loaded !== b, before);
}

// openDemo opens url and waits for the widget's first finished load.
async function openDemo(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('#reviews')?.dataset.loaded);
}

// testDemoURLState: the order and the filters live in the URL: a shared
// link opens the same view, the back button returns to the previous one,
// and "Show all ratings" ends the rating filter.
async function testDemoURLState(page, base) {
  log('demo: URL state, back button, names, contrast');
  const ids = () => page.locator('#reviews .cw-review').evaluateAll((els) => els.map((e) => e.dataset.id));
  await openDemo(page, `${base}/demo?product=bread-maker`);
  const all = await ids();
  await afterLoad(page, () => page.locator('#reviews .cw-bar[data-rating="5"]').click());
  assert.equal(new URL(page.url()).searchParams.get('ratings'), '5', 'ratings in the URL');
  const five = await ids();
  await afterLoad(page, () => page.getByLabel('Sort by').selectOption('OLDEST'));
  const url2 = new URL(page.url());
  assert.equal(url2.searchParams.get('order'), 'OLDEST', 'the order in the URL');
  const oldest = await ids();
  // Back: rating 5 newest first, then all ratings.
  await afterLoad(page, () => page.goBack());
  assert.deepEqual(await ids(), five, 'back returns to rating 5, newest first');
  assert.equal(await page.getByLabel('Sort by').inputValue(), 'NEWEST');
  assert.equal(await page.locator('#reviews .cw-bar[data-rating="5"]').getAttribute('aria-pressed'), 'true');
  await afterLoad(page, () => page.goBack());
  assert.deepEqual(await ids(), all, 'back returns to all ratings');
  assert.equal(await page.locator('#reviews .cw-bar[data-rating="5"]').getAttribute('aria-pressed'), 'false');
  await afterLoad(page, () => page.goForward());
  await afterLoad(page, () => page.goForward());
  assert.deepEqual(await ids(), oldest, 'forward returns to the oldest');
  // A shared link opens the same view.
  await openDemo(page, url2.href);
  assert.deepEqual(await ids(), oldest, 'the URL alone shows the view');
  assert.equal(await page.getByLabel('Sort by').inputValue(), 'OLDEST');
  // Every star rating in the list has a text name.
  const names = await page.locator('#reviews .cw-review .cw-stars').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  assert.ok(names.length > 0 && names.every((n) => /^[1-5] stars? of 5$/.test(n)), `star names: ${names}`);
  await assertContrast(page);
  // "Show all ratings" ends the filter.
  await afterLoad(page, () => page.getByRole('button', { name: 'Show all ratings' }).click());
  assert.equal(new URL(page.url()).searchParams.get('ratings'), null);
  assert.equal(await page.locator('#reviews .cw-bar[aria-pressed="true"]').count(), 0);
  await page.screenshot({ path: join(artifacts, 'demo-oldest.png'), fullPage: true });
}

// testDemoPhone: at a phone's 390 px nothing is wider than the viewport (no
// horizontal scrolling), and after "Load more" the focus is on the first
// new review, in view.
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
  const more = page.getByRole('button', { name: 'Load more reviews' });
  await more.scrollIntoViewIfNeeded();
  await afterLoad(page, () => more.click());
  const focus = await page.evaluate(() => {
    const f = document.activeElement;
    const li = f?.closest('.cw-review');
    return { index: li ? [...li.parentElement.children].indexOf(li) : -1, top: f.getBoundingClientRect().top };
  });
  assert.equal(focus.index, 10, 'the focus is on the first new review');
  assert.ok(focus.top >= 0 && focus.top < 844, `the first new review is in view (its top at ${focus.top}px)`);
  o = await overflow();
  assert.deepEqual(o.wide, [], 'after Load more: no element wider than the viewport');
  await page.screenshot({ path: join(artifacts, 'demo-phone-more.png') });
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
