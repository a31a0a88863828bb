import { graphql } from "react-relay";

// The 5-star leaderboard, with a fragment.
export const TopProductsQuery = graphql`
  query TopProductsQuery($first: Int) {
    topProducts(first: $first) {
      ...TopProducts_rank
    }
  }
`;

export const TopProductsRank = graphql`
  fragment TopProducts_rank on ProductRank {
    rank
    fiveStarCount
    product {
      id
    }
  }
`;
