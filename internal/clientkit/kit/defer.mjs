// @defer through Apollo Client 4: HttpLink asks for multipart answers
// (deferSpec=20220824) and the Defer20220824Handler merges the parts.
import { ApolloClient, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { print } from 'graphql';
import { countDifferences, differences, stripTypename } from './compare.mjs';
import { httpLink } from './apollo.mjs';
import { describe, recordingFetch } from './recorder.mjs';
import { fresh, introspect, withoutDefer } from './server.mjs';

const patience = 15_000;

export async function apolloDefer(fixture, ops, log) {
  const { schema } = await introspect(fixture);
  if (!schema.getDirective('defer')) {
    log('  the schema does not advertise @defer: nothing to check (the issue allows either)');
    return;
  }
  const run = fixture.deferred;
  const op = ops.get(run.operation);
  const recorder = recordingFetch();
  const apollo = new ApolloClient({
    cache: new InMemoryCache(),
    link: httpLink(fixture, { fetch: recorder }),
    incrementalHandler: new Defer20220824Handler(),
  });
  const results = [];
  const final = await new Promise((resolve) => {
    let done = false;
    let sub;
    // The subscription is closed once the recorded copy of the answer is
    // read: closing it aborts the request, the copy with it.
    const finish = async (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(watchEnd);
      await recorder.exchanges[0]?.body;
      sub?.unsubscribe();
      resolve(r);
    };
    const timer = setTimeout(() => finish(null), patience);
    // An answer that has ended with Apollo still waiting will not complete:
    // give up shortly after it ends rather than at the deadline.
    const watchEnd = setInterval(() => {
      const e = recorder.exchanges[0];
      if (!e) return;
      clearInterval(watchEnd);
      e.body.then(() => setTimeout(() => finish(null), 2000));
    }, 50);
    sub = apollo.watchQuery({ query: op.document, variables: run.variables, fetchPolicy: 'network-only' }).subscribe({
      next(r) {
        results.push(r);
        if (r.dataState === 'complete' && !r.loading) finish(r);
      },
      error(err) {
        results.push({ error: err });
        finish(null);
      },
    });
  });
  for (const e of recorder.exchanges) log(`  ${await describe(e)}`);
  log(`  Apollo emitted: ${results.map((r) => r.error ? `error ${r.error.message}` : `${r.dataState}${r.loading ? ' (loading)' : ''}`).join(', ')}`);

  const problems = [];
  const [exchange] = recorder.exchanges;
  if (!exchange) problems.push('Apollo sent nothing');
  else {
    if (!exchange.contentType.startsWith('multipart/mixed')) problems.push(`the answer is ${exchange.contentType || 'untyped'}, not multipart/mixed`);
    const body = await exchange.body;
    if (!/"incremental"\s*:/.test(body)) problems.push('no part of the answer carried the deferred fields ("incremental")');
  }
  if (!final) problems.push('Apollo had no complete result when the answer ended');
  else {
    const want = await fresh(fixture, print(withoutDefer(op.document)), run.variables, run.operation);
    const got = stripTypename(final.data);
    if (countDifferences(got, want)) problems.push(`the assembled answer differs: ${differences(got, want).join('; ')}`);
  }
  if (problems.length) throw new Error(problems.join('; '));
}
