// What the app talks to and how, from the build (import.meta.env, see
// .env and .env.trusted) and the page's URL (?api=, ?transport=, ?product=,
// ?language=), so one build can be pointed at any gateway.
const params = new URLSearchParams(window.location.search);

/** The gateway's GraphQL endpoint (queries, mutations, SSE, websocket). */
export const graphqlURL: string = params.get('api') ?? import.meta.env.VITE_GRAPHQL_URL;

/** How subscriptions travel: graphql-transport-ws (default) or GraphQL over SSE. */
export type LiveTransport = 'ws' | 'sse';
export const liveTransport: LiveTransport = params.get('transport') === 'sse' ? 'sse' : 'ws';

/**
 * A trusted-documents build (`vite build --mode trusted`) sends only the ids
 * of its documents, never their text: the gateway runs it with
 * -trusted-documents src/gql/persisted-documents.json -only-trusted-documents.
 */
export const trustedDocuments: boolean = import.meta.env.VITE_TRUSTED_DOCUMENTS === 'true';

/** The product whose comments the page shows first. */
export const initialProduct: string = params.get('product') ?? 'espresso-machine';

/** The language filter the page starts with ('' for all languages). */
export const initialLanguage: string = params.get('language') ?? '';
