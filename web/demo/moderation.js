// Writing a comment, and the moderator view (docs/moderation.md): shown when
// the gateway runs with -moderation pre or post, which the page's
// <meta name="moderation"> tells.
import { graphql, setAPIKey } from './api.js';

const $ = (id) => document.getElementById(id);
const mode = document.querySelector('meta[name="moderation"]')?.content || 'off';
const QUEUE_PAGE = 10;

const FIELDS = 'id rating author title body language createdAt status moderatedAt moderationReason';

const CREATE = `mutation Create($input: CreateCommentInput!) {
  createComment(input: $input) { comment { ${FIELDS} } }
}`;

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

// What a status means to a shopper.
const STATUS_TEXT = {
  PUBLISHED: 'published',
  PENDING: 'awaiting review',
  REJECTED: 'rejected',
  HIDDEN: 'hidden by a moderator',
};

// The comments written on this page, by id: the author's view of them.
const mine = new Map();

function showError(err) {
  $('error').textContent = `Request failed: ${err.message}`;
  $('error').hidden = false;
}

function renderMine() {
  $('mine-empty').hidden = mine.size > 0;
  $('mine').replaceChildren(...[...mine.values()].map((c) => {
    const li = document.createElement('li');
    li.dataset.id = c.id;
    li.dataset.status = c.status;
    li.innerHTML = '<strong></strong> <span class="status"></span>';
    li.querySelector('strong').textContent = c.title;
    const s = li.querySelector('.status');
    s.textContent = STATUS_TEXT[c.status] || c.status;
    s.dataset.status = c.status;
    if (c.moderationReason) s.textContent += ` (${c.moderationReason})`;
    return li;
  }));
}

// update records a comment's new state wherever the page shows it.
function update(c, reload) {
  if (mine.has(c.id)) {
    mine.set(c.id, { ...mine.get(c.id), ...c });
    renderMine();
  }
  reload();
}

function startWriting({ product, reload }) {
  const form = $('write-form');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const input = {
      productId: product(),
      language: f.get('language'),
      rating: Number(f.get('rating')),
      author: f.get('author'),
      title: f.get('title'),
      body: f.get('body'),
    };
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const { data } = await graphql(CREATE, { input });
      const c = data.createComment.comment;
      mine.set(c.id, c);
      renderMine();
      form.reset();
      $('error').hidden = true;
      reload();
    } catch (err) {
      showError(err);
    } finally {
      button.disabled = false;
    }
  });
}

function startQueue({ reload }) {
  $('moderation').hidden = false;
  $('moderation-note').textContent = mode === 'pre'
    ? 'This gateway moderates before publication: a new or edited comment waits here until approved.'
    : 'This gateway publishes at once; reported comments wait here, and enough reports hide them.';
  $('api-key').addEventListener('input', (e) => setAPIKey(e.target.value));
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
      const { data } = await graphql(`mutation Act($input: ${a.input}!) {
        ${a.field}(input: $input) { comment { ${FIELDS} } } }`, { input });
      const done = { ...c, ...data[a.field].comment };
      render(done);
      $('queue-summary').textContent = `${a.name}: “${done.title}” is now ${STATUS_TEXT[done.status]}.`;
      $('error').hidden = true;
      update(done, reload);
    } catch (err) {
      showError(err);
    }
  }

  async function show(more) {
    if (!more) after = null;
    try {
      const { data } = await graphql(QUEUE, { status: $('queue').value, first: QUEUE_PAGE, after });
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

// startModeration starts the write form, and the moderator view when the
// gateway moderates. product returns the product shown; reload shows the
// public list again.
export function startModeration({ product, reload }) {
  startWriting({ product, reload });
  if (mode === 'pre' || mode === 'post') startQueue({ reload });
}
