// The gateway under test for browser.mjs, client.mjs and ../relay/walk.mjs: built from the
// repository (or GATEWAY_BIN), served on 127.0.0.1 with a fresh bolt store
// (the demo data loads: -demo unless flags say -demo=false), stopped by pid.
import { spawn, execFileSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// launchGateway builds and starts the gateway in tmp with flags, registers
// its stop in cleanups (run first to last), and resolves to its base URL.
export async function launchGateway({ tmp, flags, log, cleanups }) {
  const bin = buildGateway(tmp, log);
  const args = ['serve', '-addr', '127.0.0.1:0', '-store', `bolt:${join(tmp, 'comments.db')}`, '-demo', ...flags];
  const gw = runGateway(bin, args);
  cleanups.unshift(gw.stop);
  return gw.url;
}

// buildGateway returns GATEWAY_BIN, or builds the gateway into tmp.
export function buildGateway(tmp, log) {
  if (process.env.GATEWAY_BIN) return process.env.GATEWAY_BIN;
  const bin = join(tmp, 'gw');
  log('go build');
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: root, stdio: 'inherit' });
  return bin;
}

// runGateway starts bin with args: { url: Promise of the base URL, pid, stop() }.
export function runGateway(bin, args) {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = new Promise((resolveBase, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), 60_000);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolveBase(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`gateway exited (${code}):\n${out}`)));
  });
  return { url, pid: child.pid, stop: () => stopGateway(child) };
}

// stopGateway sends SIGTERM by pid, and SIGKILL if it is still there after 10 s.
function stopGateway(child) {
  if (child.exitCode !== null || child.signalCode !== null) return undefined;
  return new Promise((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => { clearTimeout(kill); done(); });
    child.kill('SIGTERM');
  });
}

// postGraphQL posts one operation — a query text, or { documentId } of a
// trusted document — with plain fetch (no client, no cache), bounded by
// timeoutMs, and resolves to its data; an HTTP error status or any GraphQL
// error fails the assertion.
export async function postGraphQL(url, query, variables, timeoutMs = 30_000) {
  const doc = typeof query === 'string' ? { query } : query;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...doc, variables }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await res.json();
  assert.ok(res.ok && !body.errors, `HTTP ${res.status}: ${JSON.stringify(body.errors)}`);
  return body.data;
}

// runBounded runs main, failing it after deadlineMs, then every cleanup
// (first to last; one that fails is already gone), and resolves to true
// when main failed (its error printed with prefix).
export async function runBounded({ main, deadlineMs, cleanups, prefix }) {
  let failed = false;
  let deadline;
  try {
    await Promise.race([
      main(),
      new Promise((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`timed out after ${deadlineMs / 1000} s`)), deadlineMs);
      }),
    ]);
  } catch (err) {
    failed = true;
    console.error(`${prefix}: error`, err);
  } finally {
    clearTimeout(deadline);
    for (const fn of cleanups) {
      try { await fn(); } catch { /* already gone */ }
    }
  }
  return failed;
}
