// One comment of the product page, refetchable on its own through
// Query.node (e.g. after someone edits it).
import { graphql } from 'relay-runtime';

export const CommentRow_comment = graphql`
  fragment CommentRow_comment on Comment @refetchable(queryName: "CommentRowRefetchQuery") {
    id
    rating
    language
    author
    title
    createdAt
    product {
      id
    }
  }
`;
