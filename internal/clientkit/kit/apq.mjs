// Automatic persisted queries through Apollo's PersistedQueryLink with
// hashed queries over GET (cacheable by CDNs and browsers): the server must
// answer an unknown hash with PERSISTED_QUERY_NOT_FOUND, learn the query
// from the retry, and then answer another client's hash-only GET.
import { createHash } from 'node:crypto';
import { ApolloClient, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { countDifferences, differences, stripTypename } from './compare.mjs';
import { httpLink } from './apollo.mjs';
import { describe, recordingFetch } from './recorder.mjs';
import { fresh } from './server.mjs';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

function client(fixture) {
  const recorder = recordingFetch();
  const link = new PersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(httpLink(fixture, { fetch: recorder }));
  return { apollo: new ApolloClient({ cache: new InMemoryCache(), link }), recorder };
}

function hashOnlyGET(e) {
  if (e.method !== 'GET') return false;
  const u = new URL(e.url);
  return !u.searchParams.has('query') && (u.searchParams.get('extensions') ?? '').includes('persistedQuery');
}

async function notFound(e) {
  try {
    const body = JSON.parse(await e.body);
    return (body.errors ?? []).some((x) => x.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND' || x.message === 'PersistedQueryNotFound');
  } catch {
    return false;
  }
}

export async function apolloPersistedQueries(fixture, ops, log) {
  const run = fixture.persisted;
  const op = ops.get(run.operation);
  const problems = [];
  const query = async (c) => {
    try {
      const { data, error } = await c.apollo.query({ query: op.document, variables: run.variables, fetchPolicy: 'network-only' });
      if (error) problems.push(`Apollo: ${error.message}`);
      return data;
    } catch (err) {
      problems.push(`Apollo: ${err.message}`);
      return null;
    }
  };

  // First client: an unknown hash, then the query registered by the retry.
  const first = client(fixture);
  await query(first);
  const [miss, retry] = first.recorder.exchanges;
  if (!miss || !hashOnlyGET(miss)) problems.push('the first request was not a hash-only GET');
  else if (!(await notFound(miss))) problems.push('the hash-only GET of an unknown query did not answer PERSISTED_QUERY_NOT_FOUND as JSON');
  if (!retry || retry.method !== 'POST' || !String(retry.requestBody).includes('persistedQuery') || !String(retry.requestBody).includes('"query"')) {
    problems.push('Apollo did not retry with the query and its hash');
  } else if (retry.status !== 200) problems.push(`the registering POST answered ${retry.status}`);

  // Second client (another browser): the hash alone now gets data.
  const second = client(fixture);
  const data = await query(second);
  const [hit] = second.recorder.exchanges;
  if (second.recorder.exchanges.length !== 1 || !hashOnlyGET(hit)) {
    problems.push(`the second client made ${second.recorder.exchanges.length} request(s); want one hash-only GET`);
  }
  if (data) {
    const want = await fresh(fixture, op.text, run.variables, run.operation);
    const got = stripTypename(data);
    if (countDifferences(got, want)) problems.push(`the persisted query's answer differs: ${differences(got, want).join('; ')}`);
  } else problems.push('the second client got no data');

  for (const [who, c] of [['first client', first], ['second client', second]]) {
    for (const e of c.recorder.exchanges) log(`  ${who}: ${await describe(e)}`);
  }
  if (problems.length) throw new Error(problems.join('; '));
}
