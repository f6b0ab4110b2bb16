// Drives the Skills extension (SEP-2640, io.modelcontextprotocol/skills) of
// examples/conformance, whose skill (skills/mcp-conformance) rpcgen read,
// checked and digested at generate time, with the official TypeScript SDK
// 2.x client's SkillsClient (@modelcontextprotocol/client/ext/skills): it
// lists the skills, gets one, reads its files (the SDK verifies each file's
// size and digest, and SKILL.md's frontmatter, against the entry) and lists
// its directories. Over stdio and Streamable HTTP, in the legacy era and in
// 2026-07-28.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SKILLS_EXTENSION_ID, SkillsClient } from '@modelcontextprotocol/client/ext/skills';

import { featuresServerCommand, note } from './harness.mjs';

const SKILL = 'skill://mcp-conformance/SKILL.md';
const TOOLS = 'skill://mcp-conformance/references/TOOLS.md';

/** Starts the server over HTTP; returns its URL and a stop function. */
async function startHTTP() {
  const cmd = featuresServerCommand(true);
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
  return { url, stop };
}

for (const kind of ['stdio', 'streamable-http']) for (const era of ['legacy', 'modern']) {
  describe(`TypeScript SDK 2.x SkillsClient over ${kind} (${era})`, () => {
    let http;
    let client;
    let skills;

    before(async () => {
      if (kind === 'streamable-http') http = await startHTTP();
      const versionNegotiation = era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' };
      client = new Client({ name: 'interop-skills', version: '1.0.0' },
        { capabilities: { extensions: { [SKILLS_EXTENSION_ID]: {} } }, versionNegotiation });
      const transport = kind === 'stdio'
        ? new StdioClientTransport({ ...featuresServerCommand(false), stderr: 'pipe' })
        : new StreamableHTTPClientTransport(new URL(http.url));
      await client.connect(transport);
      skills = new SkillsClient(client);
    });
    after(async () => {
      await client?.close().catch((err) => note(`close: ${err}`));
      await http?.stop();
    });

    test('the server declares the extension with directoryRead', () => {
      assert.equal(skills.supported, true);
      assert.equal(skills.directoryRead, true);
      assert.deepEqual(client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION_ID], { directoryRead: true });
    });

    test('list, get and read: every file verified against its entry', async () => {
      const listing = await skills.list();
      assert.deepEqual(listing.invalid, []);
      assert.deepEqual(listing.skills.map((s) => s.uri), [SKILL]);
      const entry = listing.skills[0];
      assert.equal(entry.frontmatter.name, 'mcp-conformance');
      assert.deepEqual(entry.frontmatter.metadata, { fixture: 'rpcgen-conformance' });
      assert.deepEqual(entry.resources.map((r) => r.uri), [SKILL, TOOLS]);
      assert.equal(typeof listing.ttlMs, 'number');
      assert.ok(['public', 'private'].includes(listing.cacheScope), `cacheScope ${listing.cacheScope}`);

      const got = await skills.get(SKILL);
      assert.deepEqual(got.skill, entry);

      const md = await skills.read(entry);
      assert.equal(md.verified, true);
      assert.equal(md.mimeType, 'text/markdown');
      assert.deepEqual(md.frontmatter, entry.frontmatter);
      assert.match(md.body, /# MCP conformance fixture/);
      const tools = await skills.read(entry, 'references/TOOLS.md');
      assert.equal(tools.verified, true);
      assert.equal(tools.bytes.length, entry.resources[1].size);
      assert.match(tools.text, /test_simple_text/);
    });

    test('directories: the skill root and its subdirectory', async () => {
      const root = await skills.readDirectory('skill://mcp-conformance');
      assert.deepEqual(root.resources.map((r) => [r.uri, r.mimeType]), [
        [SKILL, 'text/markdown'], ['skill://mcp-conformance/references', 'inode/directory']]);
      const refs = await skills.readDirectory('skill://mcp-conformance/references');
      assert.deepEqual(refs.resources.map((r) => r.uri), [TOOLS]);
    });

    test('an unknown skill is -32602', async () => {
      await assert.rejects(skills.get('skill://nothing/SKILL.md'), (err) => {
        assert.equal(err.code, -32602, `error: ${err}`);
        return true;
      });
    });
  });
}
