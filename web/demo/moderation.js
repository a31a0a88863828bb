// The moderator view (docs/moderation.md): shown when the gateway runs with
// -moderation pre or post, which the page's <meta name="moderation"> tells.
// Moderators sign in with the page's API key field.
import { STATUS_TEXT } from '/widget/widget.js';

const $ = (id) => document.getElementById(id);
const mode = document.querySelector('meta[name="moderation"]')?.content || 'off';
const QUEUE_PAGE = 10;

const FIELDS = 'id rating author title body language createdAt status moderatedAt moderationReason';

// The queue, oldest first; "Load more" passes the last page's endCursor.
const QUEUE = `query Queue($status: ModerationQueueStatus!, $first: Int, $after: String) {
  moderationQueue(status: $status, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { node { ${FIELDS} product { id } } }
  }
}`;

// The moderators' mutations, by button: which statuses offer it, whether it
// takes a reason.
const ACTIONS = [
  { name: 'Approve', field: 'approveComment', input: 'ApproveCommentInput', from: ['PENDING', 'PUBLISHED'] },
  { name: 'Reject', field: 'rejectComment', input: 'RejectCommentInput', from: ['PENDING', 'HIDDEN'], reason: true },
  { name: 'Hide', field: 'hideComment', input: 'HideCommentInput', from: ['PUBLISHED'], reason: true },
  { name: 'Restore', field: 'restoreComment', input: 'RestoreCommentInput', from: ['HIDDEN', 'REJECTED'] },
];

// startModeration starts the moderator view when the gateway moderates:
// client sends its requests, widget shows each change (the public list and
// the author's "Your reviews"), showError reports a failure.
export function startModeration({ client, widget, showError }) {
  if (mode !== 'pre' && mode !== 'post') return;
  $('moderation').hidden = false;
  $('moderation-note').textContent = mode === 'pre'
    ? 'This gateway moderates before publication: a new or edited comment waits here until approved.'
    : 'This gateway publishes at once; reported comments wait here, and enough reports hide them.';
  let after = null;

  function item(c) {
    const li = document.createElement('li');
    li.innerHTML = '<div class="meta"></div><h3></h3><p></p><div class="status"></div>'
      + '<label>Reason <input class="reason" maxlength="500"></label><div class="actions"></div>';
    li.querySelector('h3').textContent = c.title;
    li.querySelector('p').textContent = c.body;
    const reason = li.querySelector('.reason');
    const render = (c) => {
      li.dataset.id = c.id;
      li.dataset.status = c.status;
      li.querySelector('.meta').textContent =
        `${c.rating} of 5 stars · ${c.author} · ${c.product?.id ?? ''} · ${new Date(c.createdAt).toLocaleString()}`;
      li.querySelector('.status').textContent = `Status: ${STATUS_TEXT[c.status] || c.status}`
        + (c.moderationReason ? ` (${c.moderationReason})` : '');
      li.querySelector('.actions').replaceChildren(...ACTIONS.filter((a) => a.from.includes(c.status)).map((a) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = a.name;
        b.dataset.action = a.field;
        b.setAttribute('aria-label', `${a.name}: ${c.title}`);
        b.addEventListener('click', () => act(a, c, reason.value, render));
        return b;
      }));
    };
    render(c);
    return li;
  }

  async function act(a, c, reason, render) {
    const input = a.reason ? { id: c.id, reason } : { id: c.id };
    try {
      const { data } = await client.graphql(`mutation Act($input: ${a.input}!) {
        ${a.field}(input: $input) { comment { ${FIELDS} } } }`, { input });
      const done = { ...c, ...data[a.field].comment };
      render(done);
      $('queue-summary').textContent = `${a.name}: “${done.title}” is now ${STATUS_TEXT[done.status]}.`;
      $('error').hidden = true;
      widget.update(done);
      widget.reload();
    } catch (err) {
      showError(err);
    }
  }

  async function show(more) {
    if (!more) after = null;
    try {
      const { data } = await client.graphql(QUEUE, { status: $('queue').value, first: QUEUE_PAGE, after });
      const { pageInfo, edges } = data.moderationQueue;
      const items = edges.map(({ node }) => item(node));
      if (more) $('queue-list').append(...items);
      else $('queue-list').replaceChildren(...items);
      after = pageInfo.endCursor;
      $('queue-more').hidden = !pageInfo.hasNextPage;
      const n = $('queue-list').children.length;
      $('queue-summary').textContent = n ? `${n} shown, oldest first.` : 'This queue is empty.';
      $('error').hidden = true;
    } catch (err) {
      $('queue-summary').textContent = '';
      showError(err);
    }
  }
  $('queue-load').addEventListener('click', () => show(false));
  $('queue').addEventListener('change', () => show(false));
  $('queue-more').addEventListener('click', () => show(true));
}
