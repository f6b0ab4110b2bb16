// The page of the allowed origin: the official TypeScript SDK's client, in
// the browser, against examples/notes on another origin (its URL in the
// query's "notes"), then rpcgen's generated TypeScript client against
// examples/calculator ("calc"), and that client beside internal/probe's
// ("probe"), generated into another directory with the same TypeScript
// runtime, whose errors must be one class; it frames the refused origin's
// page ("refused"). What it saw is POSTed to /result on its own
// origin, where the Go test reads it; a failure is POSTed as {"error": ...}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import * as calcModule from '../../../examples/calculator/calculator_client.ts';
import { CalculatorClient, DivisionByZeroError } from '../../../examples/calculator/calculator_client.ts';
import * as probeModule from '../../../internal/probe/probe_client.ts';
import { report, step } from './report.mjs';

const params = new URLSearchParams(location.search);
const out = { origin: location.origin };

// The page of the refused origin runs alongside, in a frame.
const frame = document.createElement('iframe');
frame.src = params.get('refused');
document.body.append(frame);

async function mcp() {
  const transport = new StreamableHTTPClientTransport(new URL(params.get('notes')));
  const client = new Client({ name: 'rpcgen-browser-test', version: '1.0.0' });
  await step('connect', () => client.connect(transport));
  // Readable only because the server exposes Mcp-Session-Id.
  out.sessionId = transport.sessionId ?? null;
  out.protocolVersion = transport.protocolVersion ?? null;
  out.server = client.getServerVersion();

  out.tools = (await step('tools/list', () => client.listTools())).tools.map((t) => t.name).sort();
  out.notes = [];
  for (let i = 1; i <= 3; i++) {
    const text = `note ${i}, written from a browser`;
    const note = await step('add_note', () => client.callTool({ name: 'add_note', arguments: { text, tags: ['web'], priority: 'high' } }));
    out.notes.push(note.structuredContent);
  }
  out.progress = [];
  const reindex = await step('reindex with progress', () =>
    client.callTool({ name: 'reindex', arguments: {} }, undefined, {
      onprogress: (p) => out.progress.push({ progress: p.progress, total: p.total ?? null }),
    }),
  );
  out.reindex = reindex.structuredContent;
  const res = await step('resources/read', () => client.readResource({ uri: `notes://${out.notes[0].id}` }));
  out.resource = res.contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, text: c.text }));
  const prompt = await step('prompts/get', () => client.getPrompt({ name: 'review_notes', arguments: { priority: 'high' } }));
  out.prompt = prompt.messages.map((m) => ({ role: m.role, text: m.content.type === 'text' ? m.content.text : m.content.type }));
  // DELETE, preflighted like the rest.
  await step('terminate the session', () => transport.terminateSession());
  out.terminated = transport.sessionId === undefined;
  await client.close();
}

// The 2024-11-05 HTTP+SSE transport: a GET event stream (its response read
// across origins too) that names the URL to POST to.
async function legacySSE() {
  const client = new Client({ name: 'rpcgen-browser-test-sse', version: '1.0.0' });
  const transport = new SSEClientTransport(new URL(params.get('notes')));
  await step('connect over HTTP+SSE', () => client.connect(transport));
  out.sse = {};
  out.sse.tools = (await step('tools/list over HTTP+SSE', () => client.listTools())).tools.map((t) => t.name).sort();
  const found = await step('search_notes over HTTP+SSE', () => client.callTool({ name: 'search_notes', arguments: { query: 'browser' } }));
  out.sse.found = found.structuredContent;
  await client.close();
}

async function calculator() {
  const calc = new CalculatorClient(params.get('calc'));
  out.calc = {};
  out.calc.add = await step('calculator.add', () => calc.add(2, 3));
  out.calc.stats = await step('calculator.stats', () => calc.stats({ numbers: [3, 1, 4, 1, 5], round: 2 }));
  const err = await calc.divide(1, 0).then(
    () => null,
    (e) => e,
  );
  out.calc.divideByZero = err && {
    isDivisionByZero: err instanceof DivisionByZeroError,
    code: err.code,
    message: err.message,
    data: err.data,
  };
}

// Two generated clients side by side: an error through either is an
// instance of the RPCError the other exports, as the runtime they import is
// one module.
async function twoClients() {
  const calc = new calcModule.CalculatorClient(params.get('calc'));
  const probe = new probeModule.ProbeClient(params.get('probe'));
  const settle = (p) => p.then(() => null, (e) => e);
  out.twoClients = {};
  out.twoClients.echo = await step('probe echo', () => probe.echo('from a browser'));
  const fromProbe = await settle(probe.add(2 ** 64, 1));
  const fromCalc = await settle(calc.divide(1, 0));
  out.twoClients.probeError = fromProbe && { code: fromProbe.code, isCalculatorRPCError: fromProbe instanceof calcModule.RPCError };
  out.twoClients.calcError = fromCalc && {
    code: fromCalc.code,
    isProbeRPCError: fromCalc instanceof probeModule.RPCError,
    isDivisionByZero: fromCalc instanceof calcModule.DivisionByZeroError,
  };
  out.twoClients.differentClasses = ['RPCError', 'TransportError', 'CancelledError', 'TimeoutError', 'JSONRPCClient', 'Batch'].filter(
    (name) => typeof calcModule[name] !== 'function' || calcModule[name] !== probeModule[name],
  );
}

report(async () => {
  await mcp();
  await legacySSE();
  await calculator();
  await twoClients();
  return out;
});
