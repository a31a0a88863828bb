// Subscription benchmark (docs/BENCHMARKS.md): SUBSCRIBERS (default 1000)
// graphql-ws clients, one websocket each, subscribed to commentAdded of one
// product on one gateway (bbolt). Reports the gateway's memory per
// subscriber (VmRSS from /proc), its CPU while RATE (default 50) comments/s
// are created for SECONDS (default 20), and the delivery latency p50/p99:
//   - gateway: commit → handed to the connection, from the gateway's
//     histogram comments_live_delivery_seconds (on -metrics-addr): from the
//     hub's receipt of the change, right after the write's commit, to the
//     event handed to the subscriber's websocket;
//   - client, commit → client, bracketed: the commit lies between the
//     comment's createdAt (taken just before the write's transaction) and
//     the writer's receipt of the mutation's reply (sent after the commit),
//     so "receipt − reply" is a lower bound and "receipt − createdAt" an
//     upper bound of commit → client.
// The clients and the writer run in this one Node process on the same
// machine (one clock), so the client figures include their own queueing.
//   cd web/live && npm ci && node bench.mjs     (GATEWAY_BIN skips go build)
// BENCH_GATEWAY_FLAGS adds gateway flags (e.g. -pprof, served on the
// metrics port, BENCH_METRICS_PORT, default a free one).
// The gateway binary is built into the same directory: with BENCH_DIR on
// tmpfs, set GATEWAY_BIN or make sure tmpfs allows executables.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { buildGateway, runGateway } from '../e2e/gateway.mjs';

const N = Number(process.env.SUBSCRIBERS ?? 1000);
const RATE = Number(process.env.RATE ?? 50);
const SECONDS = Number(process.env.SECONDS ?? 20);
const log = (...a) => console.log('bench:', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const rssKiB = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);
// cpuTicks returns the process's user and system CPU time in clock ticks
// (1/100 s): utime and stime, fields 14 and 15 of /proc/PID/stat.
const cpuTicks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(f[11]), system: Number(f[12]) };
};

async function create(base, i) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($in: CreateCommentInput!) { createComment(input: $in) { comment { id } } }',
      variables: { in: { productId: 'bench', language: 'en', rating: 1 + (i % 5), author: 'bench', title: `c${i}`, body: 'benchmark comment' } },
    }),
  });
  if (!res.ok) throw new Error(`createComment: HTTP ${res.status}`);
  const body = await res.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  const { id } = body.data.createComment.comment;
  replied.set(id, Date.now());
  return id;
}
const perComment = new Map();
const replied = new Map(); // comment id → when the writer received the mutation's reply

// freePort returns a port on 127.0.0.1 that was free a moment ago.
const freePort = () => new Promise((resolve, reject) => {
  const srv = createServer().listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
  srv.on('error', reject);
});

// deliveryHistogram reads the gateway's comments_live_delivery_seconds
// buckets: [[upper bound in seconds, cumulative count], ...] (counts may
// be printed as 1.2e+06).
async function deliveryHistogram(metricsURL) {
  const text = await (await fetch(metricsURL)).text();
  return [...text.matchAll(/^comments_live_delivery_seconds_bucket\{le="([^"]+)"\} (\S+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]);
}

// quantile returns the upper bound of the bucket that holds quantile q of
// the observations between the histograms h0 and h1.
function quantile(h0, h1, q) {
  if (h1.length === 0) return NaN; // a gateway without the histogram
  const n = h1[h1.length - 1][1] - (h0[h0.length - 1]?.[1] ?? 0);
  for (let i = 0; i < h1.length; i++) {
    if (h1[i][1] - (h0[i]?.[1] ?? 0) >= q * n) return h1[i][0];
  }
  return Infinity;
}

async function main() {
  // The bbolt file lives on tmpfs (/dev/shm) unless BENCH_DIR says
  // otherwise: a loaded disk's fsync would cap the write rate below RATE
  // and the benchmark would measure the disk, not the delivery.
  const tmp = mkdtempSync(join(process.env.BENCH_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir()), 'gw-bench-'));
  const bin = buildGateway(tmp, log);
  const metricsPort = Number(process.env.BENCH_METRICS_PORT ?? await freePort());
  const metricsURL = `http://127.0.0.1:${metricsPort}/metrics`;
  const gw = runGateway(bin, ['serve', '-dev', '-demo=false', '-addr', '127.0.0.1:0', '-store', `bolt:${join(tmp, 'b.db')}`,
    '-live-max-connections', String(N + 10), '-log-format', 'json', '-metrics-addr', `127.0.0.1:${metricsPort}`,
    ...(process.env.BENCH_GATEWAY_FLAGS ?? '').split(' ').filter(Boolean)]);
  try {
    const base = await gw.url;
    await create(base, 0);
    await sleep(1000);
    const rss0 = rssKiB(gw.pid);
    const lat = []; // receipt − createdAt
    const latReply = []; // [comment id, receipt]: receipt − reply once the reply is known
    let received = 0;
    const clients = [];
    const per = new Array(N).fill(0);
    const ended = {};
    for (let i = 0; i < N; i++) {
      const c = createClient({ url: base.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 });
      c.subscribe({ query: 'subscription { commentAdded(productId: "bench") { id createdAt } }' }, {
        next: ({ data }) => {
          received++;
          per[i]++;
          perComment.set(data.commentAdded.id, (perComment.get(data.commentAdded.id) ?? 0) + 1);
          if (measuring) {
            const now = Date.now();
            lat.push(now - Date.parse(data.commentAdded.createdAt));
            latReply.push([data.commentAdded.id, now]);
          }
        },
        error: (e) => {
          const code = Array.isArray(e) ? e[0]?.extensions?.code : `close ${e?.code}`;
          ended[code] = (ended[code] ?? 0) + 1;
        },
        complete: () => {},
      });
      clients.push(c);
    }
    let measuring = false;
    // All subscribed once one probe reaches every client.
    for (let i = 1; received < N; i++) {
      received = 0;
      await create(base, i);
      await sleep(1000);
    }
    await sleep(1000);
    const rss1 = rssKiB(gw.pid);
    log(`${N} subscribers: gateway VmRSS ${rss0} KiB → ${rss1} KiB: ${((rss1 - rss0) / N).toFixed(1)} KiB per subscriber (websocket + subscription)`);
    measuring = true;
    received = 0;
    const hist0 = await deliveryHistogram(metricsURL);
    const t0 = Date.now();
    const cpu0 = cpuTicks(gw.pid);
    const total = RATE * SECONDS;
    const node0 = process.cpuUsage();
    let created = 0;
    const createdIds = [];
    let lastCreated = 0;
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      create(base, 1000 + i).then((id) => { created++; lastCreated = Date.now(); createdIds.push(id); }, (e) => log('create', e.message));
    }
    while (received < total * N && Date.now() - t0 < (SECONDS + 30) * 1000) await sleep(100);
    const wall = (Date.now() - t0) / 1000;
    const cpu1 = cpuTicks(gw.pid);
    const cpuUser = (cpu1.user - cpu0.user) / 100; // clock ticks are 1/100 s
    const cpuSystem = (cpu1.system - cpu0.system) / 100;
    const cpu = cpuUser + cpuSystem;
    const hist1 = await deliveryHistogram(metricsURL);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const short = createdIds.filter((id) => (perComment.get(id) ?? 0) < N).map((id) => `${id}:${perComment.get(id) ?? 0}`);
    if (short.length) log(`${short.length} of ${createdIds.length} comments did not reach every subscriber`);
    log('subscriptions ended by the server:', JSON.stringify(ended));
    lat.sort((a, b) => a - b);
    const pct = (p) => lat[Math.min(lat.length - 1, Math.floor((lat.length * p) / 100))];
    log(`${total} comments at ${RATE}/s to ${N} subscribers: ${received} of ${total * N} deliveries in ${wall.toFixed(1)} s`);
    const nodeCPU = process.cpuUsage(node0);
    log(`${created} comments created, the last ${((lastCreated - t0) / 1000).toFixed(1)} s after the first was sent; this client process used ${((nodeCPU.user + nodeCPU.system) / 1e6).toFixed(1)} s CPU`);
    log(`gateway CPU ${cpu.toFixed(1)} s in ${wall.toFixed(1)} s = ${((cpu / wall) * 100).toFixed(0)}% of one core`);
    const perDelivery = (s) => ((s * 1e6) / Math.max(received, 1)).toFixed(1);
    log(`gateway CPU per delivery ${perDelivery(cpu)} µs (all of its CPU, writes included, over ${received} deliveries): user ${perDelivery(cpuUser)} µs, system ${perDelivery(cpuSystem)} µs`);
    const ms = (s) => (s === Infinity ? '> 10000' : Number.isNaN(s) ? '(no histogram)' : String(Math.round(s * 1e4) / 10));
    log(`latency commit → handed to the connection (gateway histogram, bucket upper bounds): p50 ≤ ${ms(quantile(hist0, hist1, 0.5))} ms, p99 ≤ ${ms(quantile(hist0, hist1, 0.99))} ms`);
    const lo = latReply.filter(([id]) => replied.has(id)).map(([id, t]) => t - replied.get(id)).sort((a, b) => a - b);
    const pctOf = (a, p) => a[Math.min(a.length - 1, Math.floor((a.length * p) / 100))];
    log(`latency commit → client, lower bound (receipt − writer's reply): p50 ${pctOf(lo, 50)} ms, p99 ${pctOf(lo, 99)} ms, max ${lo[lo.length - 1]} ms`);
    log(`latency commit → client, upper bound (receipt − createdAt): p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${lat[lat.length - 1]} ms`);
    log(`load average at the end (1, 5, 15 min): ${load}`);
    await Promise.all(clients.map((c) => c.dispose()));
  } finally {
    await gw.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
