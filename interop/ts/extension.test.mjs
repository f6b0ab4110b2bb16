// Drives the notes server's MCP extension (io.github.rpcgen/notes-tags, from
// the Tags interface marked //rpcgen:extension) with the official TypeScript
// SDK 2.x client (@modelcontextprotocol/client): the client declares the
// extension in its capabilities, sees the server declare it, and calls the
// extension's custom method notes-tags/count; a client that does not declare
// it is refused with -32021. Over stdio and Streamable HTTP, in the legacy
// era (initialize) and in 2026-07-28 (capabilities in each request's _meta).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { httpServerCommand, note, serverCommand } from './harness.mjs';

const EXT = 'io.github.rpcgen/notes-tags';
const COUNT = 'notes-tags/count';

/**
 * The result schema of notes-tags/count, as a Standard Schema (what the SDK
 * validates a custom method's result with): { tags: {tag: count}, untagged }.
 */
const TagCounts = {
  '~standard': {
    version: 1,
    vendor: 'rpcgen-interop',
    validate(value) {
      const ok = value && typeof value === 'object' && value.tags && typeof value.tags === 'object' &&
        Object.values(value.tags).every(Number.isInteger) && Number.isInteger(value.untagged);
      return ok ? { value: { tags: value.tags, untagged: value.untagged } } : { issues: [{ message: `not TagCounts: ${JSON.stringify(value)}` }] };
    },
  },
};

/** Starts the notes server over HTTP and returns its URL and a stop function. */
async function startHTTP() {
  const cmd = httpServerCommand();
  const child = spawn(cmd.command, cmd.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = await new Promise((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`no URL from the HTTP server within 20s; stderr:\n${stderr}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) { clearTimeout(timer); res(out.slice(0, nl).trim()); }
    });
    child.on('exit', (code) => { clearTimeout(timer); rej(new Error(`the HTTP server exited (${code}); stderr:\n${stderr}`)); });
  });
  const stop = () => new Promise((res) => {
    if (child.exitCode !== null) return res();
    child.on('exit', () => res());
    child.kill('SIGTERM');
  });
  return { url, stop, stderr: () => stderr };
}

/** A client of the notes server over kind, declaring extensions (or none). */
async function connect(kind, era, http, extensions) {
  const capabilities = extensions ? { extensions } : {};
  const versionNegotiation = era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' };
  const client = new Client({ name: 'interop-extension', version: '1.0.0' }, { capabilities, versionNegotiation });
  const transport = kind === 'stdio'
    ? new StdioClientTransport({ ...serverCommand(), stderr: 'pipe' })
    : new StreamableHTTPClientTransport(new URL(http.url));
  await client.connect(transport);
  return client;
}

for (const kind of ['stdio', 'streamable-http']) for (const era of ['legacy', 'modern']) {
  describe(`TypeScript SDK 2.x client, MCP extension over ${kind} (${era})`, () => {
    let http; // the HTTP server, when kind is streamable-http
    let declared; // a client that declares the extension
    const clients = [];

    before(async () => {
      if (kind === 'streamable-http') http = await startHTTP();
      declared = await connect(kind, era, http, { [EXT]: {} });
      clients.push(declared);
    });
    after(async () => {
      for (const c of clients) await c.close().catch((err) => note(`close: ${err}`));
      await http?.stop();
    });

    test('the server declares the extension in its capabilities', () => {
      const caps = declared.getServerCapabilities();
      assert.deepEqual(caps?.extensions?.[EXT], {}, `capabilities: ${JSON.stringify(caps)}`);
      const version = declared.getNegotiatedProtocolVersion();
      if (era === 'modern') assert.equal(version, '2026-07-28');
      else assert.ok(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'].includes(version), `negotiated ${version}`);
    });

    test('a client that declares it calls its custom method', async () => {
      const marker = `t${Date.now() % 1e9}${kind.length}${era.length}`;
      const before = await declared.request({ method: COUNT, params: {} }, TagCounts);
      for (const tags of [[marker], [marker, `${marker}b`]]) {
        const added = await declared.callTool({ name: 'add_note', arguments: { text: `tagged ${tags.join(' ')}`, tags } });
        assert.ok(!added.isError, `add_note: ${JSON.stringify(added)}`);
      }
      const counts = await declared.request({ method: COUNT, params: {} }, TagCounts);
      assert.equal(counts.tags[marker], 2, `counts: ${JSON.stringify(counts)}`);
      assert.equal(counts.tags[`${marker}b`], 1);
      assert.equal(counts.untagged, before.untagged);
    });

    test('a client that does not declare it is refused with -32021', async () => {
      const plain = await connect(kind, era, http, undefined);
      clients.push(plain);
      assert.equal(plain.getServerCapabilities()?.extensions?.[EXT] !== undefined, true, 'the server declares it to every client');
      await assert.rejects(plain.request({ method: COUNT, params: {} }, TagCounts), (err) => {
        assert.ok(err instanceof ProtocolError || typeof err?.code === 'number', `error: ${err}`);
        assert.equal(err.code, -32021, `error: ${err} ${JSON.stringify(err.data)}`);
        assert.deepEqual(err.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
        return true;
      });
    });
  });
}
