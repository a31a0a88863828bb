// A product page as a Relay app writes it: the page query, and a
// pagination fragment (@refetchable + @connection) over the product's
// comments, filtered by language and ratings, paged both ways. relay-compiler
// reads the graphql`` templates (babel-plugin-relay replaces them in an app;
// web/relay/walk.mjs loads the compiled artifacts directly).
import { graphql } from 'relay-runtime';

export const ProductPageQuery = graphql`
  query ProductPageQuery(
    $id: ID!
    $first: Int
    $after: String
    $last: Int
    $before: String
    $language: String
    $ratings: [Int!]
  ) {
    product(id: $id) {
      ...ProductPage_product
        @arguments(first: $first, after: $after, last: $last, before: $before, language: $language, ratings: $ratings)
    }
  }
`;

export const ProductPage_product = graphql`
  fragment ProductPage_product on Product
  @refetchable(queryName: "ProductPageRefetchQuery")
  # No defaultValue on first: Relay sends a variable's default in place of
  # null, so loadPrevious would send first with last (BAD_USER_INPUT).
  @argumentDefinitions(
    first: { type: "Int" }
    after: { type: "String" }
    last: { type: "Int" }
    before: { type: "String" }
    language: { type: "String" }
    ratings: { type: "[Int!]" }
  ) {
    id
    stats(language: $language) {
      total
      averageRating
      ratings {
        rating
        count
      }
    }
    comments(first: $first, after: $after, last: $last, before: $before, language: $language, ratings: $ratings)
      @connection(key: "ProductPage_comments", filters: ["language", "ratings"]) {
      totalCount
      edges {
        node {
          ...CommentRow_comment
        }
      }
    }
  }
`;
