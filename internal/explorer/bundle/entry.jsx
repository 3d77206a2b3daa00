// Folio's GraphQL explorer: GraphiQL over Folio's /graphql, bundled by
// bundle.sh into ../assets and served from the binary (internal/explorer).
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './page.css';

// The explorer is the same page for every tab and user; the Authorization
// header holds a bearer token, so nothing (headers, tabs that may copy them,
// history) is written to the browser's storage: this one keeps nothing and
// GraphiQL falls back to its in-memory state, which dies with the tab.
const forgetful = {
  getItem: () => null,
  setItem() {},
  removeItem() {},
  clear() {},
  length: 0,
};

// A plain POST to the same origin: no websocket client and nothing fetched
// from elsewhere. It sends the session cookie (same-origin), so a signed-in
// person runs queries with no pasted token; a pasted bearer token still wins.
async function fetcher(params, opts) {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...opts?.headers },
    body: JSON.stringify(params),
    credentials: 'same-origin',
  });
  return response.json();
}

const defaultQuery = `# Folio's GraphQL explorer.
#
# Signed in at /sign-in, you need nothing more.
# Otherwise use an API token: \`make run\`
# prints one on first start; make more with
#   folio token create --email you@example.com
#
# Open the Headers tab below and paste:
#   {"Authorization": "Bearer folio_…"}
# It lives in this tab only: nothing is saved
# in the browser.
#
# Then run the query (▶ or Ctrl-Enter), and
# re-fetch the schema (⟳, bottom left) for
# completion and the docs.

{
  viewer {
    user {
      id
      displayName
    }
  }
}
`;

createRoot(document.getElementById('graphiql')).render(
  <GraphiQL
    fetcher={fetcher}
    storage={forgetful}
    shouldPersistHeaders={false}
    showPersistHeadersSettings={false}
    defaultQuery={defaultQuery}
    defaultEditorToolsVisibility="headers"
  />,
);
