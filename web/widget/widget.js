// The reviews widget a shop embeds on a product page (docs/clients.md):
// plain DOM, no dependency, every element inside the host element. Read top
// to bottom: queries, state, rendering, events.
//
// Embedding: an element with data-reviews-widget (data-product;
// data-endpoint when the page is not on the gateway's origin; data-token or
// data-api-key for a signed-in shopper) and this module; it mounts on every
// such element. mountReviews mounts it by hand (the /demo page does).
import { createClient, RequestError } from './api.js';

const PAGE_SIZE = 10;
const MAX_PAGE = 100; // the API's largest page (a reload of what "Load more" showed)

// The sort menu: the API's CommentOrder values, by their shopper's name.
export const ORDERS = [
  ['NEWEST', 'Newest'],
  ['MOST_HELPFUL', 'Most helpful'],
  ['HIGHEST_RATING', 'Highest rating'],
  ['LOWEST_RATING', 'Lowest rating'],
  ['OLDEST', 'Oldest'],
];

const REVIEW = `id rating author title body language createdAt status
  helpfulCount unhelpfulCount viewerVote verifiedPurchase reply { body createdAt updatedAt }`;

// One request per view: languages for the select, stats for the summary and
// the bars, and the first page of comments.
const VIEW = `query ReviewsView($id: ID!, $language: String, $ratings: [Int!], $orderBy: CommentOrder, $first: Int) {
  product(id: $id) {
    languages { language total }
    stats(language: $language) { total averageRating ratings { rating count } }
    comments(orderBy: $orderBy, language: $language, ratings: $ratings, first: $first) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { ${REVIEW} } }
    }
  }
}`;

// "Load more": the next page after the last one shown, same order and filters.
const MORE = `query ReviewsMore($id: ID!, $language: String, $ratings: [Int!], $orderBy: CommentOrder, $first: Int, $after: String) {
  product(id: $id) {
    comments(orderBy: $orderBy, language: $language, ratings: $ratings, first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { ${REVIEW} } }
    }
  }
}`;

const VOTE = `mutation Vote($input: VoteCommentInput!) {
  voteComment(input: $input) { comment { id helpfulCount unhelpfulCount viewerVote } }
}`;

const CREATE = `mutation WriteReview($input: CreateCommentInput!) {
  createComment(input: $input) { comment { id title status moderationReason } }
}`;

// What a status means to the review's author.
export const STATUS_TEXT = {
  PUBLISHED: 'published',
  PENDING: 'awaiting review',
  REJECTED: 'rejected',
  HIDDEN: 'hidden by a moderator',
};

const stars = (n) => (n === 1 ? '1 star' : `${n} stars`);
const reviews = (n) => `${n.toLocaleString('en-US')} ${n === 1 ? 'review' : 'reviews'}`;

// formatDate shows an RFC 3339 time as a date in the language lang (the
// comment's), falling back to English for a tag Intl does not know.
export function formatDate(time, lang) {
  const d = new Date(time);
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'long' }).format(d);
  } catch {
    return new Intl.DateTimeFormat('en', { dateStyle: 'long' }).format(d);
  }
}

// el makes an element: tag with a class (tag.class), attributes and children.
function el(spec, attrs = {}, ...children) {
  const [tag, cls] = spec.split('.');
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  e.append(...children);
  return e;
}

let widgets = 0;

// mountReviews builds the widget in root and shows product's reviews.
// Options: client (from createClient) or endpoint; state, the first view
// ({ order, language, ratings }); onView(state), called after each shown
// view (the demo writes it into its URL); onLoaded({ product, language }),
// after each load; onWritten(comment), after a review is written.
// It returns { show(product, state), reload(), setAPIKey(key), setToken(jwt),
// update(comment) }.
export function mountReviews(root, { client, endpoint, product, state: initial = {}, onView, onLoaded, onWritten } = {}) {
  client ||= createClient(endpoint);
  const uid = `cw${++widgets}`;
  const state = {
    product,
    order: 'NEWEST',
    language: '',
    ...initial,
    ratings: new Set(initial.ratings), // empty: every rating
  };
  let shown = []; // the ids shown, in order
  let endCursor = null;
  let lastQuery = null; // { query, variables } of the latest comments page, for the plan
  const mine = new Map(); // the reviews written here, by id: the author's view of them

  // The skeleton: summary, controls, list, "Load more", form, developer panel.
  const ids = (name) => `${uid}-${name}`;
  root.classList.add('cw');
  root.innerHTML = `
<h2 class="cw-title" id="${ids('title')}">Customer reviews</h2>
<div class="cw-summary">
  <p class="cw-average"></p>
  <div class="cw-bars" role="group" aria-label="Filter by rating"></div>
  <button type="button" class="cw-clear" hidden>Show all ratings</button>
</div>
<div class="cw-controls">
  <div><label for="${ids('order')}">Sort by</label> <select id="${ids('order')}" class="cw-order"></select></div>
  <div><label for="${ids('language')}">Language</label> <select id="${ids('language')}" class="cw-language"></select></div>
</div>
<p class="cw-status" role="status" aria-live="polite"></p>
<ol class="cw-list" aria-labelledby="${ids('title')}"></ol>
<button type="button" class="cw-more" hidden>Load more reviews</button>
<section class="cw-write" aria-labelledby="${ids('write')}">
  <h3 id="${ids('write')}">Write a review</h3>
  <form class="cw-form" novalidate>
    <div class="cw-field" data-field="rating">
      <label for="${ids('rating')}">Rating</label>
      <select id="${ids('rating')}" name="rating">
        <option value="5">5 stars</option><option value="4">4 stars</option><option value="3">3 stars</option>
        <option value="2">2 stars</option><option value="1">1 star</option></select>
    </div>
    <div class="cw-field" data-field="title">
      <label for="${ids('f-title')}">Title</label>
      <input id="${ids('f-title')}" name="title" maxlength="200">
    </div>
    <div class="cw-field" data-field="body">
      <label for="${ids('body')}">Review</label>
      <textarea id="${ids('body')}" name="body" rows="4" maxlength="10000"></textarea>
    </div>
    <div class="cw-field" data-field="author">
      <label for="${ids('author')}">Your name</label>
      <input id="${ids('author')}" name="author" maxlength="100" autocomplete="nickname">
    </div>
    <div class="cw-field" data-field="language">
      <label for="${ids('lang')}">Language of your review</label>
      <input id="${ids('lang')}" name="language" maxlength="35" size="8" autocomplete="off" spellcheck="false">
    </div>
    <p class="cw-form-error" role="alert" hidden></p>
    <button type="submit">Submit review</button>
  </form>
  <p class="cw-thanks" role="status" aria-live="polite"></p>
  <ul class="cw-mine" aria-label="Your reviews"></ul>
</section>
<div class="cw-dev">
  <button type="button" class="cw-dev-toggle" aria-expanded="false" aria-controls="${ids('dev')}">Developer</button>
  <div class="cw-dev-panel" id="${ids('dev')}" hidden>
    <p class="cw-dev-note">The read plan of the latest page (X-Explain: 1), its cost, and any field errors.</p>
    <div class="cw-plan"></div>
    <ul class="cw-field-errors"></ul>
  </div>
</div>`;
  const $ = (cls) => root.querySelector(`.${cls}`);
  for (const [value, name] of ORDERS) $('cw-order').add(new Option(name, value));
  $('cw-form').elements.language.value = (document.documentElement.lang || 'en');

  // ---- loading ----------------------------------------------------------
  const filters = () => ({
    id: state.product,
    language: state.language || null,
    ratings: state.ratings.size ? [...state.ratings].sort() : null,
    orderBy: state.order,
  });

  // load shows the first page of the state's view; a newer load aborts an
  // older one, or a "Load more", still in flight, so a slow answer never
  // overwrites a newer view. keep > 0 reloads that many (a live update keeps
  // what "Load more" showed).
  let inFlight = null;
  async function load({ keep = 0 } = {}) {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    const variables = { ...filters(), first: Math.min(MAX_PAGE, Math.max(PAGE_SIZE, keep)) };
    root.setAttribute('aria-busy', 'true');
    $('cw-more').disabled = true; // the list is about to change
    try {
      const body = await client.request(VIEW, variables, { signal: controller.signal });
      lastQuery = { query: VIEW, variables };
      const p = body.data.product;
      renderSummary(p.stats);
      renderLanguages(p.languages);
      shown = [];
      $('cw-list').replaceChildren();
      renderPage(p.comments);
      renderErrors(body);
      explain();
      onView?.(viewState());
      onLoaded?.({ product: state.product, language: state.language });
    } catch (err) {
      if (controller.signal.aborted) return;
      $('cw-status').textContent = `Reviews could not be loaded: ${err.message}`;
    }
    root.setAttribute('aria-busy', 'false');
    $('cw-more').disabled = false;
    root.dataset.loaded = String(Date.now()); // for the browser tests
  }

  // loadMore appends the next page. The button is disabled while a load is
  // in flight; a load started meanwhile (a live update) aborts this one.
  async function loadMore() {
    const button = $('cw-more');
    if (button.disabled) return;
    button.disabled = true;
    const controller = new AbortController();
    inFlight = controller;
    const variables = { ...filters(), first: PAGE_SIZE, after: endCursor };
    try {
      const body = await client.request(MORE, variables, { signal: controller.signal });
      lastQuery = { query: MORE, variables };
      const first = $('cw-list').children.length;
      renderPage(body.data.product.comments);
      renderErrors(body);
      explain();
      // Move the focus to the first new review, so that keyboard and screen
      // reader users continue where they were.
      $('cw-list').children[first]?.querySelector('h4')?.focus();
    } catch (err) {
      if (!controller.signal.aborted) { // else a new view took over
        $('cw-status').textContent = `More reviews could not be loaded: ${err.message}`;
      }
    }
    if (controller.signal.aborted) return;
    button.disabled = false;
    root.dataset.loaded = String(Date.now());
  }

  // ---- rendering --------------------------------------------------------
  function renderSummary(stats) {
    const avg = $('cw-average');
    if (!stats.total) {
      avg.textContent = 'No reviews yet. Be the first to write one.';
    } else {
      const rounded = Math.round(stats.averageRating);
      avg.replaceChildren(
        el('span.cw-stars', { role: 'img', 'aria-label': `${stats.averageRating.toFixed(1)} out of 5 stars`,
          text: '★'.repeat(rounded) + '☆'.repeat(5 - rounded) }),
        ' ', el('strong', { text: stats.averageRating.toFixed(1) }), ' out of 5 · ',
        el('span.cw-total', { text: reviews(stats.total) }),
      );
    }
    avg.dataset.total = stats.total;
    $('cw-bars').replaceChildren(...[...stats.ratings].sort((a, b) => b.rating - a.rating).map(({ rating, count }) => {
      const fill = el('span.cw-fill');
      fill.style.width = `${(100 * count) / Math.max(1, stats.total)}%`;
      const b = el('button.cw-bar', {
        type: 'button',
        'data-rating': rating,
        'data-count': count,
        'aria-pressed': String(state.ratings.has(rating)),
        'aria-label': `${stars(rating)}, ${reviews(count)}`,
      }, el('span.cw-bar-label', { text: `${rating} ★` }), el('span.cw-track', {}, fill),
      el('span.cw-bar-count', { text: count.toLocaleString('en-US') }));
      b.title = `Show only ${stars(rating)} (click again to remove)`;
      return b;
    }));
    $('cw-clear').hidden = state.ratings.size === 0;
    $('cw-order').value = state.order;
  }

  function renderLanguages(languages) {
    const select = $('cw-language');
    select.replaceChildren(new Option('All languages', ''));
    for (const { language, total } of languages) select.add(new Option(`${language} (${total})`, language));
    if (state.language && !languages.some((l) => l.language === state.language)) {
      select.add(new Option(state.language, state.language));
    }
    select.value = state.language;
  }

  function renderPage({ totalCount, pageInfo, edges }) {
    const fresh = edges.filter(({ node }) => !shown.includes(node.id));
    shown.push(...fresh.map(({ node }) => node.id));
    $('cw-list').append(...fresh.map(({ node }) => review(node)));
    endCursor = pageInfo.endCursor;
    $('cw-more').hidden = !pageInfo.hasNextPage;
    const status = $('cw-status');
    status.textContent = totalCount
      ? `Showing ${shown.length} of ${reviews(totalCount)}`
      : 'No reviews match these filters.';
    status.dataset.totalCount = totalCount;
    status.dataset.shown = shown.length;
  }

  // review is one comment's list item.
  function review(c) {
    const li = el('li.cw-review', {
      'data-id': c.id, 'data-rating': c.rating, 'data-language': c.language, 'data-created-at': c.createdAt,
    });
    const meta = el('p.cw-meta', {},
      el('span.cw-author', { text: c.author }), ' · ',
      el('time', { datetime: c.createdAt, text: formatDate(c.createdAt, c.language) }));
    if (c.verifiedPurchase) meta.append(' ', el('span.cw-verified', { text: '✓ Verified purchase' }));
    li.append(
      el('span.cw-stars', { role: 'img', 'aria-label': `${stars(c.rating)} of 5`, text: '★'.repeat(c.rating) + '☆'.repeat(5 - c.rating) }),
      ' ', el('h4', { lang: c.language, tabindex: '-1', text: c.title }),
      meta,
      el('p.cw-body', { lang: c.language, text: c.body }),
    );
    if (c.reply) {
      li.append(el('div.cw-reply', {},
        el('p.cw-reply-head', {}, el('strong', { text: 'Reply from the shop' }), ' · ',
          el('time', { datetime: c.reply.updatedAt, text: formatDate(c.reply.updatedAt, c.language) })),
        el('p', { lang: c.language, text: c.reply.body })));
    }
    const votes = el('div.cw-votes', { role: 'group', 'aria-label': `Was “${c.title}” helpful?` },
      el('span', { text: 'Was this helpful?' }));
    const note = el('span.cw-vote-note', { role: 'status' });
    const renderVotes = (v) => {
      votes.replaceChildren(votes.firstChild, ...[[true, 'Helpful', v.helpfulCount], [false, 'Not helpful', v.unhelpfulCount]]
        .map(([helpful, name, n]) => {
          const b = el('button.cw-vote', {
            type: 'button', 'data-helpful': String(helpful), 'aria-pressed': String(v.viewerVote === helpful),
            text: `${name} (${n})`,
          });
          b.addEventListener('click', () => vote(c.id, v.viewerVote === helpful ? null : helpful, renderVotes, note));
          return b;
        }), note);
    };
    renderVotes(c);
    li.append(votes);
    return li;
  }

  // vote sends the shopper's vote (null withdraws it) and shows the new counts.
  async function vote(commentId, helpful, renderVotes, note) {
    note.textContent = '';
    if (!client.signedIn()) {
      note.textContent = 'Sign in to vote.';
      return;
    }
    try {
      const { data } = await client.graphql(VOTE, { input: { commentId, helpful } });
      renderVotes(data.voteComment.comment);
      note.textContent = helpful === null ? 'Vote withdrawn.' : 'Thanks for your vote.';
    } catch (err) {
      note.textContent = `Your vote was not counted: ${err.message}`;
    }
  }

  // ---- writing ----------------------------------------------------------
  const form = $('cw-form');
  // showFieldErrors puts each error beside its field (extensions.argument
  // "input.title" → the title field); the others go under the form.
  function showFieldErrors(errors) {
    const rest = [];
    for (const e of errors) {
      const name = /^input\.(\w+)$/.exec(e.extensions?.argument || '')?.[1];
      const field = name && form.querySelector(`.cw-field[data-field="${name}"]`);
      if (!field) {
        rest.push(e.extensions?.code ? `${e.message} (${e.extensions.code})` : e.message);
        continue;
      }
      const control = field.querySelector('input, select, textarea');
      const msg = el('p.cw-error', { id: `${control.id}-error`, text: e.message });
      field.append(msg);
      control.setAttribute('aria-invalid', 'true');
      control.setAttribute('aria-describedby', msg.id);
    }
    $('cw-form-error').textContent = rest.join('; ');
    $('cw-form-error').hidden = rest.length === 0;
    form.querySelector('[aria-invalid="true"]')?.focus();
  }
  function clearFieldErrors() {
    form.querySelectorAll('.cw-error').forEach((e) => e.remove());
    form.querySelectorAll('[aria-invalid]').forEach((c) => {
      c.removeAttribute('aria-invalid');
      c.removeAttribute('aria-describedby');
    });
    $('cw-form-error').hidden = true;
  }
  function renderMine() {
    $('cw-mine').replaceChildren(...[...mine.values()].map((c) => {
      const s = el('span.cw-status-text', { 'data-status': c.status,
        text: (STATUS_TEXT[c.status] || c.status) + (c.moderationReason ? ` (${c.moderationReason})` : '') });
      return el('li', { 'data-id': c.id, 'data-status': c.status }, el('strong', { text: c.title }), ' ', s);
    }));
  }
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearFieldErrors();
    $('cw-thanks').textContent = '';
    const f = new FormData(form);
    const input = {
      productId: state.product,
      language: f.get('language'),
      rating: Number(f.get('rating')),
      author: f.get('author'),
      title: f.get('title'),
      body: f.get('body'),
    };
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const { data } = await client.graphql(CREATE, { input });
      const c = data.createComment.comment;
      mine.set(c.id, c);
      renderMine();
      const lang = form.elements.language.value;
      form.reset();
      form.elements.language.value = lang;
      $('cw-thanks').textContent = c.status === 'PUBLISHED'
        ? 'Thank you! Your review is published.'
        : 'Thank you! Your review will appear once a moderator has approved it.';
      onWritten?.(c);
      load();
    } catch (err) {
      showFieldErrors(err instanceof RequestError ? err.errors : [{ message: err.message }]);
    } finally {
      button.disabled = false;
    }
  });

  // ---- developer panel ----------------------------------------------------
  const devOpen = () => $('cw-dev-toggle').getAttribute('aria-expanded') === 'true';
  $('cw-dev-toggle').addEventListener('click', async () => {
    const open = !devOpen();
    $('cw-dev-toggle').setAttribute('aria-expanded', String(open));
    $('cw-dev-panel').hidden = !open;
    explain();
  });

  // explain shows, when the panel is open, the plan of the page last shown:
  // the same query again, with X-Explain (shoppers' requests never carry
  // it: without -open-explain the gateway wants a credential for it).
  async function explain() {
    if (!devOpen() || !lastQuery) return;
    const { query, variables } = lastQuery;
    try {
      const body = await client.request(query, variables, { explain: true });
      if (lastQuery.variables === variables) renderPlan(body);
    } catch (err) {
      $('cw-plan').textContent = `No plan: ${err.message}`;
    }
  }

  // renderErrors lists a reply's field errors (a field the gateway cannot
  // answer loses only that field: the list still shows).
  function renderErrors(body) {
    $('cw-field-errors').replaceChildren(...(body.errors || []).slice(0, 5).map((e) =>
      el('li', { text: `${(e.path || []).join('.')}: ${e.message} (${e.extensions?.code || '?'})` })));
  }

  // renderPlan shows a reply's plan and cost.
  function renderPlan(body) {
    const plan = body.extensions?.plan?.[0];
    const cost = body.extensions?.cost;
    const box = $('cw-plan');
    if (!plan) {
      box.textContent = 'No plan in this reply (the gateway needs -open-explain or an API key for X-Explain).';
      return;
    }
    const dl = el('dl');
    for (const [k, v] of [
      ['order', state.order],
      ['strategy', plan.strategy],
      ['partitions', plan.partitions.length],
      ['items read', plan.itemsRead],
      ['store calls', plan.calls],
      ['items returned', plan.itemsReturned],
      ['skipped ratings', plan.skippedRatings?.join(', ') || '–'],
      ['request cost', cost ? `${cost.itemsRead} items, ${cost.requests} requests` : '–'],
    ]) dl.append(el('dt', { text: k }), el('dd', { 'data-fact': k, text: String(v) }));
    const table = el('table');
    table.innerHTML = '<thead><tr><th>index</th><th>key (after product)</th><th class="num">read</th><th class="num">calls</th></tr></thead><tbody></tbody>';
    for (const p of plan.partitions) {
      table.tBodies[0].append(el('tr', {},
        el('td', { text: p.index }),
        el('td', { text: p.key.replace(/^PRODUCT#[^/]*\/?/, '') || '(all)' }),
        el('td.num', { text: String(p.itemsRead) }),
        el('td.num', { text: String(p.calls) })));
    }
    box.replaceChildren(dl, table);
  }

  // ---- events -----------------------------------------------------------
  const viewState = () => ({ order: state.order, language: state.language, ratings: new Set(state.ratings) });
  $('cw-bars').addEventListener('click', (e) => {
    const rating = Number(e.target.closest('button[data-rating]')?.dataset.rating);
    if (!rating) return;
    if (state.ratings.has(rating)) state.ratings.delete(rating);
    else state.ratings.add(rating);
    load();
  });
  $('cw-clear').addEventListener('click', () => {
    state.ratings.clear();
    load();
    root.querySelector('.cw-bar')?.focus();
  });
  $('cw-order').addEventListener('change', (e) => { state.order = e.target.value; load(); });
  $('cw-language').addEventListener('change', (e) => { state.language = e.target.value; load(); });
  $('cw-more').addEventListener('click', loadMore);

  if (state.product) load();
  return {
    // show shows product's reviews in view state (order, language, ratings).
    show(id, view = {}) {
      state.product = id;
      Object.assign(state, { order: 'NEWEST', language: '' }, view, { ratings: new Set(view.ratings) });
      load();
    },
    // reload loads the view again, keeping as many reviews as are shown.
    reload: () => load({ keep: shown.length }),
    setAPIKey: (key) => { client.setAPIKey(key); load({ keep: shown.length }); },
    setToken: (jwt) => { client.setToken(jwt); load({ keep: shown.length }); },
    // update shows a comment's new state in "Your reviews" (the moderator view).
    update(c) {
      if (!mine.has(c.id)) return;
      mine.set(c.id, { ...mine.get(c.id), ...c });
      renderMine();
    },
  };
}

// Embedded: mount on every element that asks for it. The widget object is
// the element's reviewsWidget (a shop's script signs a shopper in with
// host.reviewsWidget.setToken(jwt) after the page loaded).
for (const host of document.querySelectorAll('[data-reviews-widget]')) {
  const client = createClient(host.dataset.endpoint || new URL('/graphql', import.meta.url).href);
  if (host.dataset.apiKey) client.setAPIKey(host.dataset.apiKey);
  if (host.dataset.token) client.setToken(host.dataset.token);
  host.reviewsWidget = mountReviews(host, { client, product: host.dataset.product });
}
