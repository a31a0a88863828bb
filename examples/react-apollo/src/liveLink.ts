import { Observable } from 'rxjs';
import { ApolloLink } from '@apollo/client';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { print } from '@apollo/client/utilities';
import type { FormattedExecutionResult, GraphQLFormattedError } from 'graphql';

/**
 * What graphql-ws's and graphql-sse's clients both offer: subscribe with a
 * request, get results in a sink, unsubscribe with the returned function.
 */
export interface LiveClient {
  subscribe(
    request: { query: string; variables?: Record<string, unknown>; operationName?: string; extensions?: Record<string, unknown> },
    sink: {
      next(value: FormattedExecutionResult): void;
      error(error: unknown): void;
      complete(): void;
    },
  ): () => void;
}

/**
 * LiveLink is the terminating link of subscriptions over a graphql-ws or a
 * graphql-sse client (Apollo ships one for graphql-ws only). An operation
 * that carries extensions.persistedQuery (the PersistedQueryLink of a
 * trusted-documents build) is sent by its hash alone: the gateway refuses a
 * document text that is not byte for byte the manifest's.
 */
export class LiveLink extends ApolloLink {
  constructor(private readonly client: LiveClient) {
    super();
  }

  override request(operation: ApolloLink.Operation): Observable<ApolloLink.Result> {
    const { query, variables, operationName, extensions } = operation;
    const byHash = extensions?.persistedQuery != null;
    return new Observable((observer) =>
      this.client.subscribe(
        { query: byHash ? '' : print(query), variables, operationName, extensions },
        {
          next: (value) => observer.next(value as ApolloLink.Result),
          complete: () => observer.complete(),
          error: (err) => observer.error(asError(err)),
        },
      ),
    );
  }
}

// asError turns what the clients report into an Error: GraphQL errors of the
// subscription (graphql-ws sends a list) as CombinedGraphQLErrors, so their
// extensions.code reach the app; a websocket's close event as its code.
function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  if (Array.isArray(err)) return new CombinedGraphQLErrors({ errors: err as GraphQLFormattedError[] });
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const { code, reason } = err as { code: number; reason?: string };
    return new Error(`connection closed (${code}${reason ? `: ${reason}` : ''})`);
  }
  if (typeof err === 'object' && err !== null && 'type' in err) {
    return new Error(`connection failed (${(err as { type: string }).type})`); // a websocket's error event
  }
  return new Error(String(err));
}
