// A fetch that records what a client library sent and what came back, so
// checks can assert on the exchange itself and print it when they fail.
export function recordingFetch() {
  const exchanges = [];
  const f = async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input.url;
    const entry = { method: init.method ?? 'GET', url, requestBody: init.body ?? null };
    exchanges.push(entry);
    const pending = fetch(input, init);
    // body: the whole answer as text, from a clone taken before the client
    // reads it (this reaction is registered first), so the client still
    // streams a multipart answer part by part.
    entry.body = pending
      .then((res) => res.clone().text())
      .catch((err) => `(no answer or cut short: ${err.message})`);
    const res = await pending;
    entry.status = res.status;
    entry.contentType = res.headers.get('content-type') ?? '';
    return res;
  };
  f.exchanges = exchanges;
  return f;
}

// describe prints an exchange for a failure message.
export async function describe(e) {
  const body = await e.body;
  const params = e.method === 'GET' ? decodeURIComponent(new URL(e.url).search) : e.requestBody;
  return `${e.method} ${params ? String(params).slice(0, 300) : ''} → ${e.status} ${e.contentType}: ${body.slice(0, 300)}`;
}
