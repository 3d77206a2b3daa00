// node kit/main.mjs <check> <fixture.json>: runs one named check of the
// kit against the server the fixture names (clientkit_test.go runs each as
// a subtest). Exit status 0: passed; 1: failed, with the reason last.
import { apolloCache } from './apollo.mjs';
import { apolloPersistedQueries } from './apq.mjs';
import { apolloDefer } from './defer.mjs';
import { relayCompiler, relayStore } from './relay.mjs';
import { renderer } from './renderer.mjs';
import { loadFixture, loadOperations } from './server.mjs';
import { apolloSubscription, urqlSubscription } from './subscriptions.mjs';
import { urqlCache } from './urql.mjs';

const checks = {
  'apollo-cache': apolloCache,
  'urql-graphcache': urqlCache,
  'relay-compiler': relayCompiler,
  'relay-store': relayStore,
  'apollo-persisted-queries': apolloPersistedQueries,
  'apollo-defer': apolloDefer,
  'apollo-subscription': apolloSubscription,
  'urql-sse-subscription': urqlSubscription,
  renderer,
};

const [name, fixturePath] = process.argv.slice(2);
if (!checks[name] || !fixturePath) {
  console.error(`usage: node kit/main.mjs <${Object.keys(checks).join('|')}> <fixture.json>`);
  process.exit(2);
}
const log = (line) => console.log(line);
try {
  await checks[name](loadFixture(fixturePath), loadOperations(), log);
  console.log(`PASS ${name}`);
  process.exit(0);
} catch (err) {
  console.log(`FAIL ${name}: ${err.message}`);
  process.exit(1);
}
