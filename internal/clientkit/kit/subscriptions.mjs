// Subscriptions as front ends set them up: Apollo Client 4 with a
// GraphQLWsLink (graphql-ws over a WebSocket) and urql with Graphcache and
// a graphql-sse client. Each subscribes to spaceContentUpdated, makes a
// change through plain requests (a rename, then a merge), and checks that
// the event arrives with the space as it is now and that the client's
// normalized cache shows the new title: a subscription keeps the cache
// right, it does not leave it stale.
import { ApolloClient, ApolloLink, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { Client, fetchExchange, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { createClient as createSSEClient } from 'graphql-sse';
import { createClient as createWSClient } from 'graphql-ws';
import WebSocket from 'ws';
import { httpLink, possibleTypes } from './apollo.mjs';
import { introspect, post } from './server.mjs';

const patience = 15_000;
const spaceQuery = 'query SpaceTitle($space: ID!) { space(id: $space) { id title } }';

// change renames the space and merges a change request into it, as
// another person would, and answers the new title and revision.
async function change(fixture, space, title) {
  const must = async (query, variables, field) => {
    const body = await post(fixture, query, variables);
    if (body.errors?.length || !body.data?.[field]) throw new Error(`${field}: ${JSON.stringify(body.errors ?? body).slice(0, 400)}`);
    return body.data[field];
  };
  await must('mutation($id: ID!, $t: String!) { updateSpace(id: $id, input: {title: $t}) { id } }', { id: space, t: title }, 'updateSpace');
  const cr = await must('mutation($sp: ID!) { createChangeRequest(spaceId: $sp, subject: "Live") { id } }', { sp: space }, 'createChangeRequest');
  await must(`mutation($sp: ID!, $cr: String!, $changes: [ContentChangeInput!]!) { updateChangeRequestContent(spaceId: $sp, id: $cr, changes: $changes) { id } }`,
    { sp: space, cr: cr.id, changes: [{ operation: 'insert_page', ref: 'live', markdown: `# ${title}\n\nWritten while subscribed.\n` }] }, 'updateChangeRequestContent');
  const merged = await must('mutation($sp: ID!, $cr: String!) { mergeChangeRequest(spaceId: $sp, id: $cr) { revision } }', { sp: space, cr: cr.id }, 'mergeChangeRequest');
  return { title, revision: merged.revision };
}

// firstEvent subscribes with subscribe(onEvent, onError) (which answers an
// unsubscribe function), waits until the server serves it, makes the
// change and answers the first event with what the change made.
async function firstEvent(fixture, subscribe, title) {
  let stop;
  const event = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no event within ${patience} ms`)), patience);
    stop = subscribe(
      (data) => { clearTimeout(timer); resolve(data); },
      (err) => { clearTimeout(timer); reject(err instanceof Error ? err : new Error(JSON.stringify(err))); },
    );
  });
  // A change made before the server has read the subscription is sent
  // all the same: it subscribes after the organization's latest event.
  const made = await change(fixture, fixture.subscription.space, title);
  try {
    return { got: await event, made };
  } finally {
    stop();
  }
}

function checkEvent(label, got, made, space) {
  const ev = got?.spaceContentUpdated;
  if (!ev) throw new Error(`${label}: the event has no spaceContentUpdated: ${JSON.stringify(got)}`);
  if (ev.action !== 'change_request.merged' || ev.space.id !== space || ev.revision.id !== made.revision) {
    throw new Error(`${label}: got ${JSON.stringify(ev)}, want the merge into revision ${made.revision}`);
  }
  if (ev.space.title !== made.title) throw new Error(`${label}: the event shows the space titled ${ev.space.title}, not ${made.title}`);
}

const subscription = gql`
  subscription SpaceContent($space: ID!, $after: ID) {
    spaceContentUpdated(spaceId: $space, after: $after) { eventId action space { id title } revision { id } }
  }
`;

// latestEvent is the id of the organization's newest event (the kit's
// viewer is its admin): a subscription resumed after it misses nothing
// that happens once it is sent, however long the server takes to start it.
async function latestEvent(fixture) {
  const body = await post(fixture, 'query($o: ID!) { organization(id: $o) { auditEvents(first: 1) { edges { node { id } } } } }',
    { o: fixture.subscription.organization });
  const id = body.data?.organization?.auditEvents?.edges?.[0]?.node?.id;
  if (!id) throw new Error(`the organization's latest event: ${JSON.stringify(body).slice(0, 400)}`);
  return id;
}

export async function apolloSubscription(fixture, ops, log) {
  const { schema } = await introspect(fixture);
  const ws = createWSClient({
    url: fixture.url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${fixture.token}` },
  });
  const client = new ApolloClient({
    cache: new InMemoryCache({ possibleTypes: possibleTypes(schema) }),
    link: ApolloLink.split(
      ({ query }) => query.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'subscription'),
      new GraphQLWsLink(ws),
      httpLink(fixture),
    ),
  });
  const space = fixture.subscription.space;
  const before = await client.query({ query: gql(spaceQuery), variables: { space } });
  const after = await latestEvent(fixture);
  const { got, made } = await firstEvent(fixture, (next, error) => {
    const sub = client.subscribe({ query: subscription, variables: { space, after } }).subscribe({
      next: (r) => (r.error ? error(r.error) : next(r.data)),
      error,
    });
    return () => sub.unsubscribe();
  }, 'Handbook, seen live by Apollo');
  checkEvent('Apollo over graphql-ws', got, made, space);
  const cached = client.cache.readQuery({ query: gql(spaceQuery), variables: { space } });
  if (cached?.space?.title !== made.title) {
    throw new Error(`Apollo's cache shows the space titled ${cached?.space?.title} after the event (was ${before.data.space.title}), not ${made.title}`);
  }
  log(`  Apollo over graphql-ws: ${got.spaceContentUpdated.action} ${got.spaceContentUpdated.eventId}; the cache shows "${made.title}"`);
  await ws.dispose();
}

export async function urqlSubscription(fixture, ops, log) {
  const headers = { authorization: `Bearer ${fixture.token}` };
  const sse = createSSEClient({ url: fixture.url, headers, retryAttempts: 0 });
  const client = new Client({
    url: fixture.url,
    fetchOptions: { headers },
    exchanges: [
      cacheExchange({}),
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || '' };
          return { subscribe: (sink) => ({ unsubscribe: sse.subscribe(input, sink) }) };
        },
      }),
      fetchExchange,
    ],
  });
  const space = fixture.subscription.space;
  const before = await client.query(spaceQuery, { space }).toPromise();
  if (before.error) throw before.error;
  const after = await latestEvent(fixture);
  const { got, made } = await firstEvent(fixture, (next, error) => {
    const sub = client.subscription(subscription, { space, after }).subscribe((r) => (r.error ? error(r.error) : next(r.data)));
    return () => sub.unsubscribe();
  }, 'Handbook, seen live by urql');
  checkEvent('urql over graphql-sse', got, made, space);
  const cached = await client.query(spaceQuery, { space }, { requestPolicy: 'cache-only' }).toPromise();
  if (cached.data?.space?.title !== made.title) {
    throw new Error(`urql's Graphcache shows the space titled ${cached.data?.space?.title} after the event (was ${before.data.space.title}), not ${made.title}`);
  }
  log(`  urql over graphql-sse: ${got.spaceContentUpdated.action} ${got.spaceContentUpdated.eventId}; Graphcache shows "${made.title}"`);
  sse.dispose();
}
