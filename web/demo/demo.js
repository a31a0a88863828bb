// The demo shop's product page: a product picker, a credential field, live
// updates, the reviews widget (widget.js) and, when the gateway moderates,
// the moderator view. The widget's view lives in the URL
// (?product=…&order=HIGHEST_RATING&language=de&ratings=5,4), so a view can
// be shared and the back button returns to the previous one.
import { createClient } from '/widget/api.js';
import { follow } from './live.js';
import { mountReviews } from '/widget/widget.js';
import { startModeration } from './moderation.js';

const endpoint = document.querySelector('meta[name="graphql-endpoint"]').content;
const client = createClient(endpoint);
const $ = (id) => document.getElementById(id);
const ORDERS = new Set(['NEWEST', 'OLDEST', 'HIGHEST_RATING', 'LOWEST_RATING', 'MOST_HELPFUL']);

const PRODUCTS = `query Products { topProducts(first: 50) { rank fiveStarCount product { id } } }`;

// fromURL reads the product and the widget's view from the page's URL.
function fromURL(fallbackProduct) {
  const q = new URLSearchParams(location.search);
  const rs = q.get('ratings');
  return {
    product: q.get('product') || fallbackProduct,
    view: {
      order: ORDERS.has(q.get('order')) ? q.get('order') : 'NEWEST',
      language: q.get('language') || '',
      ratings: new Set(rs ? rs.split(',').map(Number).filter((r) => r >= 1 && r <= 5) : []),
    },
  };
}

// toURL writes product and view into the URL: a new history entry, unless
// it is the one shown already (the first view, or back and forward).
function toURL(product, view) {
  const q = new URLSearchParams({ product });
  if (view.order !== 'NEWEST') q.set('order', view.order);
  if (view.language) q.set('language', view.language);
  if (view.ratings.size) q.set('ratings', [...view.ratings].sort().join(','));
  const url = `${location.pathname}?${q}`;
  if (url === location.pathname + location.search) return;
  history.pushState(null, '', url);
}

function showError(err) {
  $('error').textContent = `Request failed: ${err.message}`;
  $('error').hidden = false;
}

// Start: fill the product picker from the 5-star leaderboard, then show the
// view the URL names (or the first product).
const { data } = await client.graphql(PRODUCTS).catch((err) => {
  showError(err);
  return { data: { topProducts: [] } };
});
for (const { rank, fiveStarCount, product } of data.topProducts) {
  $('product').add(new Option(`#${rank} ${product.id} (${fiveStarCount.toLocaleString('en-US')} × 5★)`, product.id));
}
let current = fromURL(data.topProducts[0]?.product.id || 'bread-maker');
const pick = (product) => {
  if (![...$('product').options].some((o) => o.value === product)) $('product').add(new Option(product, product));
  $('product').value = product;
};
pick(current.product);
history.replaceState(null, '', location.href);

const widget = mountReviews($('reviews'), {
  client,
  product: current.product,
  state: current.view,
  onView: (view) => toURL(current.product, view),
  // Live updates: the widget loads its view again on every change.
  onLoaded: ({ product, language }) => follow(endpoint, product, language, () => widget.reload()),
});

$('product').addEventListener('change', (e) => {
  current = { product: e.target.value, view: { order: 'NEWEST', language: '', ratings: new Set() } };
  widget.show(current.product, current.view);
});
$('api-key').addEventListener('input', (e) => client.setAPIKey(e.target.value));
// Signed in (or out): the reviews again, with the shopper's own votes.
$('api-key').addEventListener('change', () => widget.reload());
// Back and forward: show the view that history entry's URL holds.
window.addEventListener('popstate', () => {
  current = fromURL(current.product);
  pick(current.product);
  widget.show(current.product, current.view);
});
startModeration({ client, widget, showError });
