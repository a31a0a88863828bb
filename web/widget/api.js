// The widget's and the demo's one way to a GraphQL endpoint: a POST with
// plain fetch. The credential lives in the client's memory only: never
// stored.

// RequestError is a reply whose errors leave no data to show: its message
// names each error's message and extensions.code; errors holds them as sent.
export class RequestError extends Error {
  constructor(errors) {
    super(errors.map((e) => (e.extensions?.code ? `${e.message} (${e.extensions.code})` : e.message)).join('; '));
    this.errors = errors;
  }
}

// createClient returns a client of the GraphQL endpoint at endpoint (a URL,
// absolute or relative to the page):
//   request(query, variables, { signal, explain }) resolves to the reply,
//     { data, errors, extensions }: errors beside data are the reply's, for
//     the caller to show; a reply without data rejects with a RequestError.
//     explain sends X-Explain: 1 (the read plan in extensions.plan).
//   graphql(query, variables, signal) is request that also rejects when the
//     reply has any error (for mutations and the moderator view).
//   setAPIKey(key) sets the key sent as X-API-Key ('' for none);
//   setToken(jwt) the token sent as Authorization: Bearer (a shopper's
//     sign-in: the JWT's subject is the voter), used when no key is set;
//   signedIn() reports whether either is set.
export function createClient(endpoint) {
  let apiKey = '';
  let token = '';
  async function request(query, variables, { signal, explain = false } = {}) {
    const headers = { 'Content-Type': 'application/json' };
    if (explain) headers['X-Explain'] = '1';
    if (apiKey) headers['X-API-Key'] = apiKey;
    else if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ query, variables }), signal });
    const body = await res.json();
    const data = body.data && Object.values(body.data).some((v) => v !== null) ? body.data : null;
    if (!data) throw new RequestError(body.errors?.length ? body.errors : [{ message: `HTTP ${res.status}` }]);
    return body;
  }
  async function graphql(query, variables, signal) {
    const body = await request(query, variables, { signal });
    if (body.errors?.length) throw new RequestError(body.errors);
    return body;
  }
  return {
    request,
    graphql,
    setAPIKey: (key) => { apiKey = key.trim(); },
    setToken: (jwt) => { token = jwt.trim(); },
    signedIn: () => apiKey !== '' || token !== '',
  };
}
