// Apollo Client 4 with its normalized InMemoryCache (objects keyed by
// __typename and id), as a React front end would set it up.
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { checkCache } from './cachecheck.mjs';
import { introspect } from './server.mjs';

// possibleTypes from the schema, as Apollo's docs recommend, so fragments
// on interfaces match.
export function possibleTypes(schema) {
  const out = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !('getInterfaces' in type) || type.constructor.name !== 'GraphQLObjectType') continue;
    for (const i of type.getInterfaces()) (out[i.name] ??= []).push(type.name);
  }
  return out;
}

export function httpLink(fixture, extra = {}) {
  return new HttpLink({ uri: fixture.url, headers: { authorization: `Bearer ${fixture.token}` }, ...extra });
}

// apolloCache: every run through one client, then cache.readQuery of each
// equals the server's answer.
export async function apolloCache(fixture, ops, log) {
  const { schema } = await introspect(fixture);
  const client = new ApolloClient({
    cache: new InMemoryCache({ possibleTypes: possibleTypes(schema) }),
    link: httpLink(fixture),
  });
  const docs = new Map();
  await checkCache(fixture, ops, {
    async execute(op, variables) {
      docs.set(op.name, op.document);
      const { data, error } = await client.query({ query: op.document, variables, fetchPolicy: 'network-only' });
      if (error || !data) throw new Error(`${op.name}: Apollo got ${error ?? 'no data'}`);
    },
    async readBack(op, variables) {
      return client.cache.readQuery({ query: docs.get(op.name), variables });
    },
  }, log);
}
