import { graphql } from "react-relay";

// Posts a comment.
export const CreateCommentMutation = graphql`
  mutation CreateCommentMutation($input: CreateCommentInput!) {
    createComment(input: $input) {
      comment {
        id
        author
        rating
      }
    }
  }
`;
