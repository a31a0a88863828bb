import { graphql } from "react-relay";

// The product's rating statistics.
export const ProductStatsQuery = graphql`
  query ProductStatsQuery($id: ID!) {
    product(id: $id) {
      id
      stats {
        total
        averageRating
      }
    }
  }
`;
