import { useState } from 'react';
import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import type { GraphQLFormattedError } from 'graphql';
import { graphql } from './gql';
import type { CommentAddedSubscription } from './gql/graphql';
import { errorCode } from './errorCodes';

const PAGE_SIZE = 10;

// What the page shows of a comment, in the list and in the live list.
graphql(`
  fragment CommentFields on Comment {
    id
    rating
    language
    author
    title
    createdAt
  }
`);

const ProductCommentsQuery = graphql(`
  query ProductComments($id: ID!, $language: String, $ratings: [Int!], $first: Int!, $after: String) {
    product(id: $id) {
      id
      languages(first: 20) {
        language
        total
      }
      stats(language: $language) {
        total
        averageRating
      }
      comments(language: $language, ratings: $ratings, first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          cursor
          node {
            ...CommentFields
          }
        }
      }
    }
  }
`);

const CommentAddedSubscriptionDocument = graphql(`
  subscription CommentAdded($productId: ID!) {
    commentAdded(productId: $productId) {
      ...CommentFields
    }
  }
`);

const CreateCommentMutation = graphql(`
  mutation CreateComment($input: CreateCommentInput!) {
    createComment(input: $input) {
      comment {
        ...CommentFields
      }
    }
  }
`);

type LiveComment = CommentAddedSubscription['commentAdded'];

/** The page: one product's comments, filters, load more, and a live list. */
export function App({ productId, initialLanguage, liveStatus }: { productId: string; initialLanguage: string; liveStatus: string }) {
  const [language, setLanguage] = useState(initialLanguage);
  const [ratings, setRatings] = useState<number[]>([]);
  const [live, setLive] = useState<LiveComment[]>([]);

  const variables = {
    id: productId,
    language: language || null,
    ratings: ratings.length ? ratings : null,
    first: PAGE_SIZE,
  };
  const { data, error, loading, fetchMore } = useQuery(ProductCommentsQuery, { variables, notifyOnNetworkStatusChange: true });
  const sub = useSubscription(CommentAddedSubscriptionDocument, {
    variables: { productId },
    onData: ({ data: d }) => {
      const added = d.data?.commentAdded;
      if (added) setLive((l) => [added, ...l]);
    },
  });

  const product = data?.product;
  const comments = product?.comments;
  const toggle = (r: number) => setRatings((rs) => (rs.includes(r) ? rs.filter((x) => x !== r) : [...rs, r].sort()));

  return (
    <main>
      <h1>
        Comments on <code data-testid="product">{productId}</code>
      </h1>
      <fieldset>
        <label>
          Language{' '}
          <select data-testid="language" value={language} onChange={(e) => setLanguage(e.target.value)}>
            <option value="">all</option>
            {language && !product?.languages?.some((l) => l.language === language) && <option value={language}>{language}</option>}
            {product?.languages?.map((l) => (
              <option key={l.language} value={l.language}>
                {l.language} ({l.total})
              </option>
            ))}
          </select>
        </label>{' '}
        Ratings{' '}
        {[1, 2, 3, 4, 5].map((r) => (
          <label key={r}>
            <input type="checkbox" data-testid={`rating-${r}`} checked={ratings.includes(r)} onChange={() => toggle(r)} />
            {r}★{' '}
          </label>
        ))}
      </fieldset>

      <Errors label="query" errors={errorsOf(error)} />
      {product?.stats && (
        <p data-testid="stats">
          {product.stats.total} comments, average {product.stats.averageRating?.toFixed(2) ?? '–'}
        </p>
      )}
      {comments && (
        <>
          <p>
            Showing <span data-testid="shown">{comments.edges.length}</span> of <span data-testid="total">{comments.totalCount}</span>
          </p>
          <ul data-testid="comments">
            {comments.edges.map(({ node }) => (
              <li key={node.id} data-id={node.id} data-rating={node.rating} data-language={node.language}>
                {'★'.repeat(node.rating)} <b>{node.title}</b> — {node.author} ({node.language},{' '}
                {new Date(node.createdAt).toLocaleDateString()})
              </li>
            ))}
          </ul>
          {comments.pageInfo.hasNextPage && (
            <button
              data-testid="load-more"
              disabled={loading}
              onClick={() => fetchMore({ variables: { after: comments.pageInfo.endCursor } })}
            >
              Load more
            </button>
          )}
        </>
      )}

      <NewComment productId={productId} />

      <h2>
        Live (<span data-testid="live-status">{liveStatus}</span>)
      </h2>
      <Errors label="live" errors={errorsOf(sub.error)} />
      <ul data-testid="live">
        {live.map((c) => (
          <li key={c.id} data-id={c.id}>
            {'★'.repeat(c.rating)} <b>{c.title}</b> — {c.author} ({c.language})
          </li>
        ))}
      </ul>
    </main>
  );
}

/** A form that posts a comment (it arrives in the live list). */
function NewComment({ productId }: { productId: string }) {
  const [title, setTitle] = useState('');
  const [rating, setRating] = useState(5);
  const [create, { error, loading }] = useMutation(CreateCommentMutation);
  const post = async () => {
    const input = { productId, language: 'en', rating, author: 'example app', title, body: title };
    const { data } = await create({ variables: { input } });
    if (data?.createComment) setTitle('');
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void post();
      }}
    >
      <input data-testid="new-title" placeholder="Title" value={title} onChange={(e) => setTitle(e.target.value)} required />{' '}
      <select data-testid="new-rating" value={rating} onChange={(e) => setRating(Number(e.target.value))}>
        {[5, 4, 3, 2, 1].map((r) => (
          <option key={r} value={r}>
            {r}★
          </option>
        ))}
      </select>{' '}
      <button data-testid="post" disabled={loading}>
        Post
      </button>
      <Errors label="post" errors={errorsOf(error)} />
    </form>
  );
}

/** A shown error: its code (extensions.code, or none) and message. */
interface ShownError {
  code: string;
  message: string;
}

// errorsOf lists an Apollo error's GraphQL errors with their codes; any
// other error (the network, a closed connection) as one without a code.
function errorsOf(error: unknown): ShownError[] {
  if (!error) return [];
  if (CombinedGraphQLErrors.is(error)) {
    return error.errors.map((e: GraphQLFormattedError) => ({ code: errorCode(e) ?? 'UNKNOWN', message: e.message }));
  }
  return [{ code: 'NETWORK', message: error instanceof Error ? error.message : String(error) }];
}

function Errors({ label, errors }: { label: string; errors: ShownError[] }) {
  if (!errors.length) return null;
  return (
    <ul className="errors" data-testid={`${label}-errors`}>
      {errors.map((e, i) => (
        <li key={i} data-code={e.code}>
          {e.code}: {e.message}
        </li>
      ))}
    </ul>
  );
}
