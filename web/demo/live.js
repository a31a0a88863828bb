// Live updates for the demo: one GraphQL-over-SSE stream (graphql-sse
// protocol, distinct connections mode: a POST with Accept:
// text/event-stream) of the shown product's commentChanged and
// statsChanged events. Each event calls onChange (the page re-queries its
// view, so it stays exactly what a fresh query shows). The indicator
// (#live) says live / reconnecting / off; the stream stops when the tab is
// closed or hidden for good (pagehide), and reconnects after a failure.
const STREAM = `subscription Live($id: ID!, $language: String) {
  commentChanged(productId: $id, language: $language) { kind }
}`;

let current = null; // { key, controller }

function indicate(status) {
  const el = document.getElementById('live');
  if (!el) return;
  el.dataset.status = status;
  el.textContent = { live: '● live', reconnecting: '○ reconnecting…', off: '○ off' }[status];
}

// stream POSTs the subscription and calls onEvent per `next` event; it
// resolves when the server ends the stream and rejects on a network error.
async function stream(endpoint, variables, signal, onEvent) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ query: STREAM, variables }),
    signal,
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  indicate('live');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended'); // a restart: reconnect
    buf += value;
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      if (/^event: complete$/m.test(block)) return;
      const data = block.match(/^data: (.*)$/m);
      if (/^event: next$/m.test(block) && data) onEvent(JSON.parse(data[1]));
    }
  }
}

// follow keeps one stream open for product id in language ('' for all),
// replacing the stream of the previous product or language.
export function follow(endpoint, id, language, onChange) {
  const key = `${id}\u0000${language}`;
  if (current?.key === key) return;
  current?.controller.abort();
  const controller = new AbortController();
  current = { key, controller };
  (async () => {
    for (let wait = 500; !controller.signal.aborted; wait = Math.min(wait * 2, 10_000)) {
      try {
        await stream(endpoint, { id, language: language || null }, controller.signal, (r) => {
          if (r.errors) throw new Error(r.errors[0].message);
          onChange();
        });
        break; // completed by the server: nothing more will come
      } catch (err) {
        if (controller.signal.aborted) break;
        indicate('reconnecting');
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    if (current?.controller === controller) indicate('off');
  })();
}

addEventListener('pagehide', () => current?.controller.abort());
