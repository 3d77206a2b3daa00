// The check every normalized cache gets: run all the fixture's runs through
// one client (one cache, as one front end session would), then read each
// run back from the cache alone and compare it with the server's answer.
import { countDifferences, differences, stripTypename } from './compare.mjs';
import { fresh } from './server.mjs';

// client: { execute(op, variables) -> data, readBack(op, variables) -> data or null }
export async function checkCache(fixture, ops, client, log) {
  const runs = fixture.runs.map((run) => {
    const op = ops.get(run.operation);
    if (!op) throw new Error(`run "${run.name}": no operation ${run.operation} in queries/`);
    return { ...run, op };
  });
  for (const run of runs) {
    await client.execute(run.op, run.variables);
  }
  let failed = 0;
  for (const run of runs) {
    const want = await fresh(fixture, run.op.text, run.variables, run.name);
    const cached = await client.readBack(run.op, run.variables);
    const label = `${run.name} (${run.operation} ${JSON.stringify(run.variables)})`;
    if (cached == null) {
      failed++;
      log(`  ✗ ${label}: the cache could not answer it`);
      continue;
    }
    const got = stripTypename(cached);
    const n = countDifferences(got, want);
    if (n === 0) {
      log(`  ✓ ${run.name}`);
      continue;
    }
    failed++;
    log(`  ✗ ${label}: ${n} value(s) differ from the server's answer`);
    for (const d of differences(got, want)) log(`      ${d}`);
  }
  if (failed) throw new Error(`${failed} of ${runs.length} cached reads differ from the server's answer`);
}
