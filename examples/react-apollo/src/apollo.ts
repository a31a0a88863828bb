import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { relayStylePagination } from '@apollo/client/utilities';
import { OperationTypeNode, type DocumentNode } from 'graphql';
import { createClient as createWsClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import { LiveLink, type LiveClient } from './liveLink';
import type { LiveTransport } from './settings';

/** Where and how the client talks to the gateway. */
export interface ClientOptions {
  url: string;
  transport: LiveTransport;
  trustedDocuments: boolean;
  /** Called with each change of the live connection, for the page to show. */
  onLiveStatus: (status: string) => void;
}

// A failed live connection is retried twice, after 1 s and 2 s, then
// reported to the subscription (graphql-ws and graphql-sse default to 5
// randomised retries, half a minute before an error shows).
const retryAttempts = 2;
const retryWait = (retries: number) => new Promise<void>((done) => setTimeout(done, 1000 * 2 ** retries));

/**
 * newClient builds the Apollo Client of the app: HTTP for queries and
 * mutations, graphql-ws or graphql-sse for subscriptions, a cache that
 * merges the pages of Product.comments, and errorPolicy 'all' everywhere.
 */
export function newClient({ url, transport, trustedDocuments, onLiveStatus }: ClientOptions): ApolloClient {
  const live = new LiveLink(transport === 'sse' ? sseClient(url, onLiveStatus) : wsClient(url, onLiveStatus));
  let link = ApolloLink.split(
    (op) => op.operationType === OperationTypeNode.SUBSCRIPTION,
    live,
    new HttpLink({ uri: url }),
  );
  if (trustedDocuments) {
    // Send each document's id from the manifest (codegen's __meta__.hash,
    // "sha256:<hex>"), never its text; GET, so a CDN can cache the reply.
    link = new PersistedQueryLink({
      generateHash: (doc: DocumentNode) => (doc as DocumentNode & { __meta__: { hash: string } }).__meta__.hash,
      useGETForHashedQueries: true,
    }).concat(link);
  }
  return new ApolloClient({
    link,
    cache: new InMemoryCache({
      typePolicies: {
        Product: {
          fields: {
            // One list per filter; fetchMore's pages are appended to it.
            comments: relayStylePagination(['language', 'ratings']),
          },
        },
      },
    }),
    // The gateway returns partial data with errors (a bad filter loses
    // only its field): keep the data instead of throwing it away.
    defaultOptions: {
      watchQuery: { errorPolicy: 'all' },
      query: { errorPolicy: 'all' },
      mutate: { errorPolicy: 'all' },
    },
    // No clientLibrary in the request's extensions: it would make every
    // Apollo Client version a different GET URL, splitting CDN cache keys.
    enhancedClientAwareness: { transport: false },
  });
}

// wsClient: graphql-transport-ws on the same URL (ws:, or wss: for https:).
function wsClient(url: string, onLiveStatus: (status: string) => void): LiveClient {
  return createWsClient({
    url: url.replace(/^http/, 'ws'),
    retryAttempts,
    retryWait,
    shouldRetry: () => true,
    on: {
      connecting: () => onLiveStatus('connecting'),
      connected: () => onLiveStatus('connected'),
      closed: (event) => onLiveStatus(`closed (${(event as CloseEvent).code})`),
    },
  });
}

// sseClient: GraphQL over Server-Sent Events, one stream per subscription
// (the "distinct connections" mode, a POST with Accept: text/event-stream).
function sseClient(url: string, onLiveStatus: (status: string) => void): LiveClient {
  return createSseClient({
    url,
    retryAttempts,
    retry: retryWait,
    on: {
      connecting: () => onLiveStatus('connecting'),
      connected: () => onLiveStatus('connected'),
    },
  });
}
