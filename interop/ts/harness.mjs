// Shared pieces of the TypeScript SDK interop test: the server command, a
// client connected over the SDK's StdioClientTransport with a tap on the raw
// bytes of the server's stdout, and JSON Schema 2020-12 checking with ajv.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The server's command line: INTEROP_SERVER (a path, then optional arguments
 * separated by spaces), or else examples/notes built from this repository.
 */
export function serverCommand() {
  const env = (process.env.INTEROP_SERVER ?? '').trim();
  if (env) {
    const [command, ...args] = env.split(/\s+/);
    return { command: resolve(command), args };
  }
  const bin = join(mkdtempSync(join(tmpdir(), 'interop-notes-')), 'notes');
  const build = spawnSync('go', ['build', '-o', bin, './examples/notes'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) {
    throw new Error(`building examples/notes (set INTEROP_SERVER to test another server):\n${build.stderr}`);
  }
  return { command: bin, args: [] };
}

/**
 * Starts the server and connects the SDK's Client to it. The result holds the
 * client, the negotiated protocol version, every message the server wrote to
 * stdout after the handshake (parsed from the raw bytes, with arrival times),
 * every message the client sent, errors the SDK reported, and the server's
 * stderr.
 */
export async function connect(cmd) {
  const transport = new StdioClientTransport({
    command: cmd.command,
    args: cmd.args,
    cwd: mkdtempSync(join(tmpdir(), 'interop-cwd-')), // a fresh, empty store
    env: process.env,
    stderr: 'pipe',
  });
  const session = { transport, wire: [], sent: [], errors: [], stderr: '', protocolVersion: undefined };
  transport.stderr.on('data', (b) => { session.stderr += b; });
  // The SDK calls this optional transport hook with the negotiated version.
  transport.setProtocolVersion = (v) => { session.protocolVersion = v; };
  const send = transport.send.bind(transport);
  transport.send = async (msg, opts) => {
    await send(msg, opts);
    session.sent.push({ at: performance.now(), msg });
  };
  const client = new Client({ name: 'interop-ts-sdk', version: '1' });
  client.onerror = (err) => session.errors.push(err);
  await client.connect(transport);
  // A second listener on the child's stdout sees the same bytes the SDK
  // parses, in order: this is the wire, independent of the SDK's bookkeeping.
  const stdout = transport._process?.stdout;
  if (!stdout) throw new Error('cannot reach the child process stdout: StdioClientTransport internals changed');
  let buf = '';
  stdout.on('data', (chunk) => {
    const at = performance.now();
    buf += chunk.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      if (line) session.wire.push({ at, line, msg: JSON.parse(line) });
    }
  });
  session.client = client;
  return session;
}

/** Messages on the wire about request id: progress for it and its response. */
export function wireFor(session, id) {
  return session.wire.filter(({ msg }) =>
    (msg.id === id && !msg.method) ||
    (msg.method === 'notifications/progress' && msg.params?.progressToken === id));
}

/** A 2020-12 validator; strict mode off so unknown keywords are tolerated. */
export function newAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** Validates a schema against the JSON Schema 2020-12 meta-schema. */
export function metaSchemaErrors(schema) {
  const ajv = newAjv();
  if (ajv.validateSchema(schema)) return null;
  return ajv.errorsText(ajv.errors);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The text of a tool result's text blocks. */
export function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}
