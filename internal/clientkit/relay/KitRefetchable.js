// Relay-only fragments: what a Relay front end refetches on its own (a page
// view, a member row) must be a Node, found again by node(id:). The
// shared operations of queries/ are compiled next to this file.
import { graphql } from 'relay-runtime';

export const page = graphql`
  fragment KitRefetchable_page on Page @refetchable(queryName: "KitRefetchablePageQuery") {
    id
    title
    markdown
  }
`;

export const member = graphql`
  fragment KitRefetchable_member on Member @refetchable(queryName: "KitRefetchableMemberQuery") {
    id
    role
    user {
      id
      displayName
    }
  }
`;
