// The product-page demo: plain DOM, one fetch per view. Read top to bottom.
import { follow } from './live.js';
import { graphql } from './api.js';
import { startModeration } from './moderation.js';
const endpoint = document.querySelector('meta[name="graphql-endpoint"]').content;
const PAGE_SIZE = 10;
const $ = (id) => document.getElementById(id);

const stars = (n) => (n === 1 ? '1 star' : `${n} stars`);
const number = (n) => n.toLocaleString('en-US');

const PRODUCTS = `query Products { topProducts(first: 50) { rank fiveStarCount product { id } } }`;

// One request per view: languages for the select, stats for the toggles and
// the histogram, and one page of comments. Paging forward passes first/after,
// backward last/before; the variables left out stay unset.
const PAGE = `query Page($id: ID!, $language: String, $ratings: [Int!],
    $first: Int, $after: String, $last: Int, $before: String) {
  product(id: $id) {
    languages { language total }
    stats(language: $language) { total averageRating ratings { rating count } }
    comments(language: $language, ratings: $ratings,
             first: $first, after: $after, last: $last, before: $before) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { node { id rating author title body language createdAt } }
    }
  }
}`;

// The view's state: what is selected, and where in the list we are. It
// lives in the URL (?product=…&language=…&ratings=5,4&after=…&page=2), so a
// view can be shared and the back button returns to the previous one.
const state = {
  product: '',
  language: '',
  ratings: new Set([1, 2, 3, 4, 5]),
  page: { first: PAGE_SIZE }, // or { first, after } / { last, before }
  pageNo: 1,
  pageInfo: null,
};

// toURL writes the state into the page's URL: a new history entry for a
// user's change (push), or the current one replaced (the first view).
function toURL(push) {
  const q = new URLSearchParams({ product: state.product });
  if (state.language) q.set('language', state.language);
  if (state.ratings.size < 5) q.set('ratings', [...state.ratings].sort().join(','));
  if (state.page.after) q.set('after', state.page.after);
  if (state.page.before) q.set('before', state.page.before);
  if (state.pageNo > 1) q.set('page', state.pageNo);
  const url = `${location.pathname}?${q}`;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

// fromURL reads the state from the page's URL (a shared link, or back).
function fromURL(fallbackProduct) {
  const q = new URLSearchParams(location.search);
  state.product = q.get('product') || fallbackProduct;
  state.language = q.get('language') || '';
  const rs = q.get('ratings');
  state.ratings = new Set(rs === null ? [1, 2, 3, 4, 5]
    : rs.split(',').map(Number).filter((r) => r >= 1 && r <= 5));
  state.pageNo = Math.max(1, Number(q.get('page')) || 1);
  if (q.get('before')) state.page = { last: PAGE_SIZE, before: q.get('before') };
  else if (q.get('after')) state.page = { first: PAGE_SIZE, after: q.get('after') };
  else state.page = { first: PAGE_SIZE };
}

// load shows the state's view. A newer load aborts an older one still in
// flight, so a slow answer never overwrites a newer view.
let inFlight = null;
async function load({ scroll = false } = {}) {
  inFlight?.abort();
  const controller = new AbortController();
  inFlight = controller;
  const variables = {
    id: state.product,
    language: state.language || null,
    ratings: [...state.ratings].sort(),
    ...state.page,
  };
  $('list').setAttribute('aria-busy', 'true');
  $('summary').textContent = 'Loading…';
  try {
    const { data, extensions } = await graphql(PAGE, variables, controller.signal);
    render(data.product, extensions?.plan?.[0], extensions?.cost);
    $('error').hidden = true;
    follow(endpoint, state.product, state.language, load); // live updates: re-query on change
  } catch (err) {
    if (controller.signal.aborted) return; // a newer load took over
    $('summary').textContent = '';
    $('error').textContent = `Request failed: ${err.message}`;
    $('error').hidden = false;
  }
  $('list').setAttribute('aria-busy', 'false');
  if (scroll) $('list').scrollIntoView({ block: 'start' });
  document.body.dataset.loaded = String(Date.now()); // for the browser test
}

function render(product, plan, cost) {
  renderLanguages(product.languages);
  renderRatings(product.stats);
  renderHistogram(product.stats);
  renderComments(product.comments);
  renderPlan(plan, cost);
}

function renderLanguages(languages) {
  const select = $('language');
  select.replaceChildren(new Option('all languages', ''));
  for (const { language, total } of languages) {
    select.add(new Option(`${language} (${total})`, language));
  }
  select.value = state.language;
}

function renderRatings(stats) {
  const group = $('ratings');
  group.replaceChildren();
  for (const { rating, count } of [...stats.ratings].reverse()) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.rating = rating;
    button.setAttribute('aria-pressed', String(state.ratings.has(rating)));
    button.setAttribute('aria-label', `${stars(rating)}, ${number(count)} comments`);
    button.textContent = `${'★'.repeat(rating)} ${number(count)}`;
    group.append(button);
  }
}

function renderHistogram(stats) {
  const max = Math.max(1, ...stats.ratings.map((r) => r.count));
  $('average').textContent = stats.total
    ? `${stats.averageRating.toFixed(2)} average from ${number(stats.total)} comments`
    : 'No comments yet';
  $('histogram').replaceChildren(...[...stats.ratings].reverse().map(({ rating, count }) => {
    const row = document.createElement('div');
    row.className = 'bar';
    row.setAttribute('role', 'img');
    row.setAttribute('aria-label', `${stars(rating)}: ${number(count)} comments`);
    row.innerHTML = `<span>${rating} ★</span><span class="track"><span class="fill"></span></span><span class="n"></span>`;
    row.querySelector('.fill').style.width = `${(100 * count) / max}%`;
    row.querySelector('.n').textContent = number(count);
    return row;
  }));
}

function renderComments(connection) {
  const { totalCount, pageInfo, edges } = connection;
  state.pageInfo = pageInfo;
  $('summary').textContent = state.ratings.size === 0
    ? 'No rating selected: choose at least one rating above to see comments.'
    : `${number(totalCount)} comments match`;
  $('summary').dataset.totalCount = totalCount;
  $('comments').replaceChildren(...edges.map(({ node }) => {
    const li = document.createElement('li');
    li.dataset.id = node.id;
    li.dataset.rating = node.rating;
    li.dataset.language = node.language;
    li.dataset.createdAt = node.createdAt;
    li.innerHTML = '<span class="stars"></span><h3></h3><div class="meta"></div><p></p>';
    li.querySelector('.stars').textContent = '★'.repeat(node.rating) + '☆'.repeat(5 - node.rating);
    li.querySelector('.stars').setAttribute('role', 'img');
    li.querySelector('.stars').setAttribute('aria-label', `${stars(node.rating)} of 5`);
    li.querySelector('h3').textContent = node.title;
    li.querySelector('.meta').textContent =
      `${node.author} · ${node.language} · ${new Date(node.createdAt).toLocaleString()}`;
    li.querySelector('p').textContent = node.body;
    return li;
  }));
  const pages = Math.max(1, Math.ceil(totalCount / PAGE_SIZE));
  $('page').textContent = `Page ${state.pageNo} of ${pages}`;
  // Forward paging knows hasNextPage exactly, backward paging hasPreviousPage
  // (the Relay spec lets the other flag be false); the page number covers the
  // other direction.
  const backward = 'last' in state.page;
  $('next').disabled = backward ? false : !pageInfo.hasNextPage;
  $('prev').disabled = backward ? !pageInfo.hasPreviousPage : state.pageNo <= 1;
  if (!edges.length) $('next').disabled = $('prev').disabled = true;
}

function renderPlan(plan, cost) {
  const box = $('plan');
  if (!plan) {
    box.textContent = 'No plan (this gateway does not support X-Explain).';
    return;
  }
  const facts = [
    ['strategy', plan.strategy],
    ['partitions', plan.partitions.length],
    ['items read', plan.itemsRead],
    ['store calls', plan.calls],
    ['items returned', plan.itemsReturned],
    ['skipped ratings', plan.skippedRatings?.join(', ') || '–'],
    ['request cost', cost ? `${cost.itemsRead} items, ${cost.requests} requests` : '–'],
  ];
  const dl = document.createElement('dl');
  for (const [k, v] of facts) {
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = k;
    dd.textContent = v;
    dd.dataset.fact = k;
    dl.append(dt, dd);
  }
  const table = document.createElement('table');
  table.innerHTML = '<thead><tr><th>index</th><th>key (after product)</th><th class="num">read</th><th class="num">calls</th></tr></thead><tbody></tbody>';
  for (const p of plan.partitions) {
    const tr = table.tBodies[0].insertRow();
    for (const [v, cls] of [[p.index], [p.key.replace(/^PRODUCT#[^/]*\/?/, '') || '(all)'], [p.itemsRead, 'num'], [p.calls, 'num']]) {
      const td = tr.insertCell();
      td.textContent = v;
      if (cls) td.className = cls;
    }
  }
  box.replaceChildren(dl, table);
}

// go changes the state by change, records it in the URL (a new history
// entry) and loads the view.
function go(change, opts) {
  change();
  toURL(true);
  load(opts);
}

function firstPage() {
  state.page = { first: PAGE_SIZE };
  state.pageNo = 1;
}

$('ratings').addEventListener('click', (e) => {
  const rating = Number(e.target.closest('button[data-rating]')?.dataset.rating);
  if (!rating) return;
  go(() => {
    if (state.ratings.has(rating)) state.ratings.delete(rating);
    else state.ratings.add(rating);
    firstPage();
  });
});
$('product').addEventListener('change', (e) => go(() => {
  state.product = e.target.value;
  state.language = '';
  firstPage();
}));
$('language').addEventListener('change', (e) => go(() => {
  state.language = e.target.value;
  firstPage();
}));
$('next').addEventListener('click', () => go(() => {
  state.page = { first: PAGE_SIZE, after: state.pageInfo.endCursor };
  state.pageNo++;
}, { scroll: true }));
$('prev').addEventListener('click', () => go(() => {
  state.page = { last: PAGE_SIZE, before: state.pageInfo.startCursor };
  state.pageNo--;
}, { scroll: true }));

// Start: fill the product picker from the 5-star leaderboard, then show the
// view the URL names (or the first product).
const { data } = await graphql(PRODUCTS).catch((err) => {
  $('error').textContent = `Request failed: ${err.message}`;
  $('error').hidden = false;
  return { data: { topProducts: [] } };
});
for (const { rank, fiveStarCount, product } of data.topProducts) {
  $('product').add(new Option(`#${rank} ${product.id} (${number(fiveStarCount)} × 5★)`, product.id));
}
const showURL = () => {
  fromURL(data.topProducts[0]?.product.id || 'bread-maker');
  if (![...$('product').options].some((o) => o.value === state.product)) {
    $('product').add(new Option(state.product, state.product));
  }
  $('product').value = state.product;
};
// Back and forward: show the view that history entry's URL holds.
window.addEventListener('popstate', () => {
  showURL();
  load();
});
showURL();
toURL(false);
load();
// Writing a comment, and the moderator view when moderation is on: both
// show their changes in the list by loading the view again.
startModeration({ product: () => state.product, reload: () => load() });
