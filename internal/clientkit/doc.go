// Package clientkit is the Node test kit of real GraphQL clients: Apollo
// Client 4 with its InMemoryCache, urql with Graphcache and the Relay
// compiler and store, run by clientkit_test.go against a seeded Folio; and
// GitBook's own API client (@gitbook/api), with which renderer_test.go makes
// every call GitBook's open-source renderer makes for a page. It
// holds no Go code of its own: the kit is package.json (exact versions,
// package-lock.json), kit/ (the checks), queries/ (the operations every
// client runs) and relay/ (Relay-only fragments). Install it once with
// `npm ci` in this directory; make test then runs it.
package clientkit
