// The page of an origin the servers do not list: the same two clients must
// fail (the browser refuses to go on after the 403 to its preflight). What
// each attempt gave is POSTed to /result on this page's own origin.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { CalculatorClient } from '../../../examples/calculator/calculator_client.ts';
import { report } from './report.mjs';

const params = new URLSearchParams(location.search);

// attempt runs f, which must fail, and says how.
async function attempt(f) {
  try {
    const v = await f();
    return { failed: false, value: JSON.stringify(v) };
  } catch (e) {
    return { failed: true, name: e?.name ?? typeof e, message: String(e?.message ?? e), cause: String(e?.cause ?? '') };
  }
}

report(async () => {
  const out = { origin: location.origin };
  out.mcp = await attempt(async () => {
    const client = new Client({ name: 'rpcgen-browser-test-refused', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(params.get('notes'))));
    return client.listTools();
  });
  out.calc = await attempt(() => new CalculatorClient(params.get('calc')).add(2, 3));
  // A plain fetch, for the browser's own word on it.
  out.fetch = await attempt(() =>
    fetch(params.get('calc'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'calculator.add', params: { a: 1, b: 2 } }),
    }).then((r) => r.status),
  );
  return out;
});
