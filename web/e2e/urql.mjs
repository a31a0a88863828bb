// The urql part of the client test (client.mjs): @urql/core with
// Graphcache's relayPagination() on Product.comments, as a front end pages a
// connection with urql. Each walk goes forward page by page (first/after:
// endCursor) and checks the merged list against the recount; one bad
// argument shows that an error loses only its field.
import assert from 'node:assert/strict';
import { Client, fetchExchange, gql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';

const COMMENTS = gql`
  query UrqlComments($id: ID!, $language: String, $ratings: [Int!], $first: Int, $after: String) {
    product(id: $id) {
      id
      comments(language: $language, ratings: $ratings, first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { cursor node { id language rating createdAt } }
      }
    }
  }`;

// newUrqlClient returns a urql client with a normalized cache that merges
// the pages of Product.comments (relayPagination), per filter.
export function newUrqlClient(uri, requestMs) {
  return new Client({
    url: uri,
    requestPolicy: 'network-only',
    fetchOptions: () => ({ signal: AbortSignal.timeout(requestMs) }),
    exchanges: [
      cacheExchange({
        keys: { CommentConnection: () => null, CommentEdge: () => null, PageInfo: () => null },
        resolvers: { Product: { comments: relayPagination() } },
      }),
      fetchExchange,
    ],
  });
}

// walkForward pages product's comments matching filter with urql and
// returns how many pages it fetched; the merged list must equal wantIds.
export async function walkForward(client, { product, filter, pageSize, wantIds, name }) {
  let after = null;
  let pages = 0;
  let result;
  for (;;) {
    result = await client.query(COMMENTS, { id: product, ...filter, first: pageSize, after }).toPromise();
    assert.ok(!result.error, `${name} (urql): ${result.error?.message}`);
    pages++;
    const c = result.data.product.comments;
    assert.equal(c.totalCount, wantIds.length, `${name} (urql): totalCount`);
    if (!c.pageInfo.hasNextPage) break;
    after = c.pageInfo.endCursor;
    assert.ok(pages <= wantIds.length / pageSize + 1, `${name} (urql): the walk ends`);
  }
  assert.deepEqual(result.data.product.comments.edges.map((e) => e.node.id), wantIds,
    `${name} (urql): the merged list of every page is the recount`);
  return pages;
}

// badArgumentLosesOnlyItsField: a language that is a POSIX locale gets a
// BAD_USER_INPUT error naming the argument, and the product's id is still
// returned beside the null comments.
export async function badArgumentLosesOnlyItsField(client, product) {
  const r = await client.query(COMMENTS, { id: product, language: 'en_US', first: 1 }).toPromise();
  const err = r.error?.graphQLErrors?.[0];
  assert.equal(err?.extensions?.code, 'BAD_USER_INPUT', `urql: ${r.error?.message}`);
  assert.equal(err.extensions.argument, 'language');
  assert.match(err.message, /use "en-US"/);
  assert.equal(r.data?.product?.id, product, 'urql: product survives a bad comments argument');
  assert.equal(r.data.product.comments, null);
}
