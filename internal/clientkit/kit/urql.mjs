// urql with Graphcache, its normalized cache, made schema-aware from the
// server's introspection as Graphcache's docs recommend.
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { isObjectType } from 'graphql';
import { checkCache } from './cachecheck.mjs';
import { introspect } from './server.mjs';

// keys: objects without an id (connections, edges, URLs, search hits) are
// embedded in their parent, said explicitly so Graphcache does not warn.
// Every object with an id is keyed by it (Graphcache's default).
function keys(schema) {
  const out = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    if (!type.getFields().id) out[type.name] = () => null;
  }
  return out;
}

// urqlCache: every run through one client, then each run again with
// requestPolicy cache-only equals the server's answer.
export async function urqlCache(fixture, ops, log) {
  const { schema, introspection } = await introspect(fixture);
  const client = new Client({
    url: fixture.url,
    exchanges: [cacheExchange({ schema: introspection, keys: keys(schema) }), fetchExchange],
    fetchOptions: { headers: { authorization: `Bearer ${fixture.token}` } },
  });
  await checkCache(fixture, ops, {
    async execute(op, variables) {
      const res = await client.query(op.document, variables, { requestPolicy: 'network-only' }).toPromise();
      if (res.error || !res.data) throw new Error(`${op.name}: urql got ${res.error ?? 'no data'}`);
    },
    async readBack(op, variables) {
      const res = await client.query(op.document, variables, { requestPolicy: 'cache-only' }).toPromise();
      if (res.error) throw new Error(`${op.name} from the cache: ${res.error}`);
      return res.data ?? null;
    },
  }, log);
}
