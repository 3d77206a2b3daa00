// Deep comparison of a cached read with the server's answer, telling where
// they differ in the answer's own paths (space.revision.page.markdown).

// stripTypename drops the __typename every normalized cache adds to each
// selection: the plain-fetch answer does not ask for it.
export function stripTypename(value) {
  if (Array.isArray(value)) return value.map(stripTypename);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      if (k !== '__typename') out[k] = stripTypename(v);
    }
    return out;
  }
  return value;
}

// differences lists where got differs from want (at most limit of them):
// each as "path: cache <value> ≠ server <value>".
export function differences(got, want, limit = 6) {
  const out = [];
  walk(got, want, '', out, limit);
  return out;
}

function walk(got, want, path, out, limit) {
  if (out.length >= limit) return;
  if (Array.isArray(want) || Array.isArray(got)) {
    if (!Array.isArray(want) || !Array.isArray(got)) {
      out.push(`${path || '.'}: cache ${show(got)} ≠ server ${show(want)}`);
      return;
    }
    if (got.length !== want.length) out.push(`${path}: cache has ${got.length} items, server ${want.length}`);
    for (let i = 0; i < Math.min(got.length, want.length); i++) walk(got[i], want[i], `${path}[${i}]`, out, limit);
    return;
  }
  if (want && typeof want === 'object' && got && typeof got === 'object') {
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in got)) out.push(`${p}: missing from the cache (server ${show(want[k])})`);
      else if (!(k in want)) out.push(`${p}: in the cache (${show(got[k])}) but not in the server's answer`);
      else walk(got[k], want[k], p, out, limit);
      if (out.length >= limit) return;
    }
    return;
  }
  if (got !== want) out.push(`${path || '.'}: cache ${show(got)} ≠ server ${show(want)}`);
}

function show(v) {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 90 ? s.slice(0, 87) + '…' : s;
}

// countDifferences is how many leaves differ (for the summary line).
export function countDifferences(got, want) {
  return differences(got, want, Infinity).length;
}
