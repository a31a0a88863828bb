// Browser test of the demo's moderator view (docs/moderation.md): builds and
// starts the gateway on 127.0.0.1 with -moderation pre and one moderator
// API key (-moderator-api-keys), then
// in Chromium (playwright-core) writes a comment on /demo — refused with
// UNAUTHENTICATED without the key, then "awaiting review" with it — finds it
// in the PENDING queue, approves it (it joins the public list), hides it
// (it leaves), and checks contrast and the 390 px layout of the panels.
// Fails on any request to another host, CSP violation or page error.
//
//   cd web && npm ci && node e2e/moderation.mjs   (web/test.sh runs it too)
//   env: CHROMIUM (default /usr/bin/chromium), GATEWAY_BIN (skip go build)
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { launchGateway, root, runBounded } from './gateway.mjs';
import { assertContrast } from './contrast.mjs';
import { launchChromium } from './chromium.mjs';

const artifacts = join(root, 'artifacts');
mkdirSync(artifacts, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'gw-moderation-'));
const cleanups = [() => rmSync(tmp, { recursive: true, force: true })];
const log = (...a) => console.log('moderation:', ...a);
const problems = []; // foreign requests, CSP violations, page errors

const key = randomBytes(32).toString('hex');
const keyHash = createHash('sha256').update(key).digest('hex');

async function main() {
  const base = await launchGateway({
    tmp, log, cleanups,
    flags: ['-graphiql', '-introspection', '-open-explain', '-moderation', 'pre', '-moderator-api-keys', keyHash],
  });
  log('gateway at', base);
  const { context, page } = await launchChromium({ tmp, base, problems, cleanups });
  try {
    await moderate(page, base);
  } catch (err) {
    await page.screenshot({ path: join(artifacts, 'moderation-failure.png'), fullPage: true }).catch(() => {});
    throw err;
  }
  assert.deepEqual(problems, [], 'no foreign requests, CSP violations or errors');
  await phone(context, base);
  assert.deepEqual(problems, [], 'phone: no foreign requests, CSP violations or errors');
  log('PASS');
}

async function moderate(page, base) {
  const product = `moderated-${Date.now()}`;
  await page.goto(`${base}/demo?product=${product}`);
  await page.waitForFunction(() => document.querySelector('#reviews')?.dataset.loaded);
  await page.locator('#moderation').waitFor({ state: 'visible' });
  const publicIds = () => page.locator('#reviews .cw-review').evaluateAll((els) => els.map((e) => e.dataset.id));
  assert.deepEqual(await publicIds(), [], 'a new product has no public comments');

  // Without a credential the gateway refuses the comment: its message and code show.
  const form = page.locator('#reviews .cw-form');
  await form.getByLabel('Your name').fill('Ann');
  await form.getByLabel('Title').fill('Kneads well');
  await form.getByLabel('Review', { exact: true }).fill('Good crust, quiet motor.');
  await form.getByRole('button', { name: 'Submit review' }).click();
  await form.locator('.cw-form-error', { hasText: 'UNAUTHENTICATED' }).waitFor();

  // With the key: the author sees it awaiting review; the public list does not show it.
  await page.getByLabel('API key').fill(key);
  await form.getByRole('button', { name: 'Submit review' }).click();
  const mine = page.locator('#reviews .cw-mine li');
  await mine.filter({ hasText: 'awaiting review' }).waitFor();
  const id = await mine.first().getAttribute('data-id');
  assert.equal(await mine.first().getAttribute('data-status'), 'PENDING');
  await page.waitForFunction(() => document.querySelector('#reviews .cw-status')?.dataset.totalCount === '0');
  assert.deepEqual(await publicIds(), [], 'a pending comment is not public');

  // The moderator's PENDING queue holds it; Approve publishes it.
  await page.getByLabel('Queue').selectOption('PENDING');
  await page.getByRole('button', { name: 'Show queue' }).click();
  const queued = page.locator(`#queue-list li[data-id="${id}"]`);
  await queued.waitFor();
  await assertContrast(page);
  await page.screenshot({ path: join(artifacts, 'demo-moderation.png'), fullPage: true });
  await queued.getByRole('button', { name: 'Approve: Kneads well' }).click();
  await page.locator(`#queue-list li[data-id="${id}"][data-status="PUBLISHED"]`).waitFor();
  await page.locator(`#reviews .cw-review[data-id="${id}"]`).waitFor();
  await mine.filter({ hasText: 'published' }).waitFor();
  const check = await gqlPublic(base, product);
  assert.deepEqual(check, [id], 'the API lists the approved comment');

  // Hide, with a reason: it leaves the public list; the HIDDEN queue has it.
  await queued.getByLabel('Reason').fill('off-topic');
  await queued.getByRole('button', { name: 'Hide: Kneads well' }).click();
  await page.locator(`#queue-list li[data-id="${id}"][data-status="HIDDEN"]`).waitFor();
  await page.locator(`#reviews .cw-review[data-id="${id}"]`).waitFor({ state: 'detached' });
  await mine.filter({ hasText: 'hidden by a moderator (off-topic)' }).waitFor();
  assert.deepEqual(await gqlPublic(base, product), [], 'the API no longer lists it');
  await page.getByLabel('Queue').selectOption('HIDDEN');
  await page.locator(`#queue-list li[data-id="${id}"] button`, { hasText: 'Restore' }).waitFor();

  // Without the key the queue is refused: FORBIDDEN shows.
  await page.getByLabel('API key').fill('');
  await page.getByRole('button', { name: 'Show queue' }).click();
  await page.locator('#error', { hasText: 'FORBIDDEN' }).waitFor();
}

// gqlPublic lists the product's public comment ids (no credential).
async function gqlPublic(base, product) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: 'query($p: ID!) { product(id: $p) { comments(first: 10) { nodes { id } } } }', variables: { p: product } }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = await res.json();
  assert.ok(!body.errors, JSON.stringify(body.errors));
  return body.data.product.comments.nodes.map((n) => n.id);
}

// phone: at 390 px the panels fit the viewport (no horizontal scrolling).
async function phone(context, base) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/demo?product=phone-${Date.now()}`);
  await page.waitForFunction(() => document.querySelector('#reviews')?.dataset.loaded);
  await page.locator('#moderation').waitFor({ state: 'visible' });
  const o = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    wide: [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((e) => `${e.tagName}#${e.id}.${e.className}`),
  }));
  assert.deepEqual(o.wide, [], 'no element wider than the 390 px viewport');
  assert.ok(o.scrollWidth <= o.innerWidth, `no horizontal scroll: scrollWidth ${o.scrollWidth}`);
  await assertContrast(page);
  await page.screenshot({ path: join(artifacts, 'demo-moderation-phone.png'), fullPage: true });
  await page.close();
}

const failed = await runBounded({ main, deadlineMs: 180_000, cleanups, prefix: 'moderation' });
process.exit(failed ? 1 : 0);
