// The Relay compiler over the kit's operations, and Relay's own normalized
// store (records keyed by id alone, whatever their type) over the runs.
//
// A Relay project is laid out in a temporary directory: relay.config.json
// (the kit's), schema.graphql (the served schema, introspected and printed
// to SDL by graphql-js), and src/ with one module per queries/*.graphql
// (SpacePage.graphql becomes src/SpacePage.js holding graphql`…`, Relay's
// naming rule for modules) plus the Relay-only fragments of relay/.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { printSchema } from 'graphql';
import { countDifferences, differences } from './compare.mjs';
import { fresh, introspect, kitDir } from './server.mjs';

const require = createRequire(import.meta.url);

// What in the compiler's output is about ids: Relay's id-type validation,
// global ids, and fragments that need the Node interface.
const idProblem = /Disallowed type|global id|field `id`|\bNode\b|@refetchable|identify entities/i;

// compile lays out a Relay project and runs the compiler on it.
// validateIds: the kit's relay.config.json (id fields outside Node must be
// IDs too), else Relay's default configuration; refetchable: with the
// Relay-only fragments of relay/.
async function compile(fixture, ops, { validateIds, refetchable }) {
  const dir = mkdtempSync(join(tmpdir(), 'folio-relay-'));
  const { schema } = await introspect(fixture);
  writeFileSync(join(dir, 'schema.graphql'), printSchema(schema));
  if (validateIds) {
    copyFileSync(join(kitDir, 'relay.config.json'), join(dir, 'relay.config.json'));
  } else {
    writeFileSync(join(dir, 'relay.config.json'), JSON.stringify({ src: './src', schema: './schema.graphql', language: 'javascript' }));
  }
  // The compiler writes artifacts as ES modules; relayStore imports them.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  mkdirSync(join(dir, 'src'));
  for (const op of ops.values()) {
    writeFileSync(join(dir, 'src', `${op.module}.js`), `import { graphql } from 'relay-runtime';\n\nexport default graphql\`\n${op.text}\`;\n`);
  }
  if (refetchable) {
    for (const f of readdirSync(join(kitDir, 'relay'))) copyFileSync(join(kitDir, 'relay', f), join(dir, 'src', f));
  }
  const res = spawnSync(require('relay-compiler'), ['--noWatchman', '--output', 'verbose', join(dir, 'relay.config.json')], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  // eslint-disable-next-line no-control-regex
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`.replace(/\u001b\[[0-9;]*m/g, '');
  return { dir, status: res.status, error: res.error, output };
}

// relayCompiler: with Relay's id validation on, the compiler accepts the
// operations and, in a second pass, the refetchable fragments (two passes:
// the compiler stops at the first phase that fails, and each pass tells
// its own problems), and says nothing about ids.
export async function relayCompiler(fixture, ops, log) {
  const problems = [];
  for (const [what, refetchable] of [['the operations of queries/', false], ['the operations and the refetchable fragments of relay/', true]]) {
    const { dir, status, error, output } = await compile(fixture, ops, { validateIds: true, refetchable });
    rmSync(dir, { recursive: true, force: true });
    log(`  relay-compiler over ${what}:`);
    log(output.trim().split('\n').map((l) => `  | ${l}`).join('\n'));
    if (error) throw new Error(`relay-compiler did not run: ${error.message}`);
    const idLines = output.split('\n').filter((l) => /\[(WARN|ERROR)\]/.test(l) && idProblem.test(l));
    if (status !== 0 || idLines.length) {
      problems.push(`over ${what}: exited ${status}${idLines.length ? `; about ids: ${idLines.map((l) => l.replace(/^.*?✖︎\s*/, '')).join(' | ')}` : ''}`);
    }
  }
  if (problems.length) throw new Error(`relay-compiler ${problems.join('; ')}`);
}

// relayStore: every run through one Relay environment, then each run read
// back from the store equals the server's answer, and the normalizer never
// found one id on records of two types.
export async function relayStore(fixture, ops, log) {
  const { dir, status, output } = await compile(fixture, ops, { validateIds: false, refetchable: false });
  try {
    if (status !== 0) throw new Error(`relay-compiler (Relay's default configuration) failed:\n${output}`);
    const { Environment, Network, RecordSource, Store, createOperationDescriptor, fetchQuery } = require('relay-runtime');
    const network = Network.create(async (params, variables) => {
      const res = await fetch(fixture.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${fixture.token}` },
        body: JSON.stringify({ query: params.text, variables }),
      });
      return res.json();
    });
    const env = new Environment({ network, store: new Store(new RecordSource()) });
    const warnings = [];
    const consoleError = console.error;
    console.error = (...args) => warnings.push(args.map(String).join(' '));
    const runs = [];
    for (const run of fixture.runs) {
      const artifact = await import(pathToFileURL(join(dir, 'src', '__generated__', `${run.operation}.graphql.js`)).href);
      runs.push({ ...run, op: ops.get(run.operation), artifact: artifact.default });
    }
    try {
      for (const run of runs) await fetchQuery(env, run.artifact, run.variables).toPromise();
    } finally {
      console.error = consoleError;
    }
    let failed = 0;
    for (const run of runs) {
      const want = await fresh(fixture, run.op.text, run.variables, run.name);
      const snapshot = env.lookup(createOperationDescriptor(run.artifact, run.variables).fragment);
      const n = countDifferences(snapshot.data, want);
      if (n === 0 && !snapshot.isMissingData) {
        log(`  ✓ ${run.name}`);
        continue;
      }
      failed++;
      log(`  ✗ ${run.name} (${run.operation} ${JSON.stringify(run.variables)}): ${snapshot.isMissingData ? 'data missing from the store; ' : ''}${n} value(s) differ from the server's answer`);
      for (const d of differences(snapshot.data, want)) log(`      ${d}`);
    }
    const mixed = warnings.filter((w) => /RelayResponseNormalizer|Invalid record|__typename/.test(w));
    for (const w of mixed.slice(0, 6)) log(`  ✗ Relay: ${w.split('\n')[0]}`);
    if (failed || mixed.length) {
      throw new Error(`${failed} of ${runs.length} reads from Relay's store differ from the server's answer; ${mixed.length} warning(s) of one id on records of two types`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
