// What every check needs from the seeded server: the fixture the Go test
// wrote, the kit's operations, plain-fetch answers to compare caches with,
// and the schema as the server introspects it.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildClientSchema, getIntrospectionQuery, parse, visit } from 'graphql';

export const kitDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const queriesDir = join(kitDir, 'queries');

// The fixture written by clientkit_test.go: the GraphQL URL, the viewer's
// token and the runs (operation name, variables and what the run reads).
export function loadFixture(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

// Operations of queries/*.graphql by operation name, as text. Each file
// holds one operation named after it (SpacePage.graphql: SpacePageQuery),
// the naming the Relay compiler requires of a module.
export function loadOperations() {
  const ops = new Map();
  for (const file of readdirSync(queriesDir).filter((f) => f.endsWith('.graphql')).sort()) {
    const text = readFileSync(join(queriesDir, file), 'utf8');
    const doc = parse(text);
    const op = doc.definitions.find((d) => d.kind === 'OperationDefinition');
    if (!op?.name) throw new Error(`${file}: no named operation`);
    ops.set(op.name.value, { name: op.name.value, module: file.replace(/\.graphql$/, ''), text, document: doc });
  }
  return ops;
}

// post sends one operation as a front end without a client library would:
// a JSON POST with the bearer token. It returns the decoded body.
export async function post(fixture, query, variables) {
  const res = await fetch(fixture.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${fixture.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`POST ${fixture.url} answered ${res.status} ${res.headers.get('content-type')}, not JSON: ${text.slice(0, 200)}`);
  }
}

// fresh is the server's own answer to a run, fetched with plain fetch: the
// truth every cached read is compared with. An answer with errors is a
// broken fixture, not a cache problem, so it throws.
export async function fresh(fixture, text, variables, label) {
  const body = await post(fixture, text, variables);
  if (body.errors?.length || !body.data) {
    throw new Error(`${label}: the server answered errors: ${JSON.stringify(body.errors ?? body).slice(0, 600)}`);
  }
  return body.data;
}

// introspect is the served schema, as a graphql-js schema and the raw
// introspection result.
export async function introspect(fixture) {
  const body = await post(fixture, getIntrospectionQuery(), {});
  if (body.errors?.length) throw new Error(`introspection: ${JSON.stringify(body.errors)}`);
  return { schema: buildClientSchema(body.data), introspection: body.data };
}

// withoutDefer is the operation with every @defer removed: what the
// deferred answer must add up to.
export function withoutDefer(document) {
  return visit(document, {
    Directive(node) {
      return node.name.value === 'defer' ? null : undefined;
    },
  });
}
