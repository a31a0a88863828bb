// The demo's one way to the GraphQL endpoint: a POST with plain fetch.
const endpoint = document.querySelector('meta[name="graphql-endpoint"]').content;
let apiKey = '';

// setAPIKey sets the key sent as X-API-Key with every later request ('' for
// none). It lives in this module only: never stored.
export function setAPIKey(key) {
  apiKey = key.trim();
}

// graphql POSTs a GraphQL request. X-Explain: 1 asks the gateway for the read
// plan of every `comments` field, returned in extensions.plan. signal aborts
// it. A reply with errors throws one Error whose message names each error's
// message and extensions.code.
export async function graphql(query, variables, signal) {
  const headers = { 'Content-Type': 'application/json', 'X-Explain': '1' };
  if (apiKey) headers['X-API-Key'] = apiKey;
  const res = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
    signal,
  });
  const body = await res.json();
  if (body.errors?.length) {
    throw new Error(body.errors
      .map((e) => (e.extensions?.code ? `${e.message} (${e.extensions.code})` : e.message)).join('; '));
  }
  return body;
}
