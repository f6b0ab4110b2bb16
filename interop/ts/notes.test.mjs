// Drives the notes MCP server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk), as an MCP host would: over stdio, over
// Streamable HTTP and over the legacy HTTP+SSE transport, the same checks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { McpError } from '@modelcontextprotocol/sdk/types.js';

import {
  checkStrict, closeClient, connect, connectHTTP, httpServerCommand, metaSchemaErrors, GRACE, newAjv, note, serverCommand, sleep, textOf,
  wireFor,
} from './harness.mjs';

/** JSON for failure messages, cut short. */
const brief = (v) => { const j = JSON.stringify(v); return j.length > 160 ? `${j.slice(0, 150)}...(${j.length} chars)` : j; };

const TOOLS = ['add_note', 'delete_note', 'get_note', 'reindex', 'search_notes'];
const WITH_OUTPUT = ['add_note', 'get_note', 'reindex', 'search_notes'];

for (const kind of ['stdio', 'streamable-http', 'sse']) describe(`TypeScript SDK client over ${kind}`, () => {
  let s; // the session from connect() or connectHTTP()
  const tools = new Map(); // name -> descriptor
  const outputValidators = new Map(); // name -> compiled ajv validator
  const marker = `zq${Date.now() % 1e9}`;
  const added = [];

  before(async () => {
    s = kind === 'stdio' ? await connect(serverCommand()) : await connectHTTP(httpServerCommand(), kind);
  });
  after(async () => {
    let failure; // judged once the client and the server are stopped
    try {
      await closeClient(s, kind);
    } catch (err) {
      failure = err;
    }
    const exit = await s?.stop?.();
    if (s?.stderr) note(`server stderr (${kind}):\n${s.stderr}`);
    if (failure) throw failure;
    if (exit) assert.deepEqual(exit, { code: 0, signal: null }, 'the HTTP server exits cleanly on SIGTERM');
    checkStrict(s, `${kind}, after the client closed`);
  });

  /** Calls a tool that must succeed; checks structuredContent against its outputSchema. */
  async function callOK(name, args, options) {
    const res = await s.client.callTool({ name, arguments: args }, undefined, options);
    assert.ok(!res.isError, `${name}(${brief(args)}) isError: ${textOf(res)}`);
    if (WITH_OUTPUT.includes(name)) {
      assert.ok(res.structuredContent !== undefined, `${name}(${brief(args)}): no structuredContent: ${brief(res)}`);
    }
    const validate = outputValidators.get(name);
    if (validate) {
      assert.ok(validate(res.structuredContent),
        `${name}: structuredContent ${JSON.stringify(res.structuredContent)} violates its outputSchema: ` +
        JSON.stringify(validate.errors));
    }
    return res;
  }

  test('initialize', () => {
    assert.equal(s.protocolVersion, '2025-11-25', 'the SDK\'s latest revision is negotiated');
    assert.ok(s.client.getServerVersion()?.name, 'serverInfo.name');
    assert.ok(s.client.getServerCapabilities()?.tools, 'the tools capability');
  });

  test('tools/list: names and schemas valid against the 2020-12 meta-schema', async () => {
    // The SDK checks the result's shape itself (with zod) and rejects it whole
    // when a descriptor is malformed: say which.
    const res = await s.client.listTools().catch((err) => {
      const issues = (err.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
      assert.fail(`the SDK rejected the tools/list result: ${issues.length ? issues.join('; ') : err}`);
    });
    for (const t of res.tools) tools.set(t.name, t);
    assert.deepEqual([...tools.keys()].sort(), TOOLS);
    for (const [name, t] of tools) {
      assert.equal(t.inputSchema.type, 'object', `${name}: inputSchema root`);
      assert.equal(metaSchemaErrors(t.inputSchema), null, `${name}: inputSchema ${JSON.stringify(t.inputSchema)}`);
      assert.equal(t.outputSchema !== undefined, WITH_OUTPUT.includes(name), `${name}: has outputSchema`);
      if (t.outputSchema) {
        assert.equal(metaSchemaErrors(t.outputSchema), null, `${name}: outputSchema ${JSON.stringify(t.outputSchema)}`);
        outputValidators.set(name, newAjv().compile(t.outputSchema));
      }
      assert.ok(t.description?.length > 10, `${name}: a description from its doc comment`);
    }
  });

  test('each tool with valid arguments', async () => {
    for (const args of [
      { text: `Buy milk ${marker}`, tags: ['shopping'], priority: 'high' },
      { text: `Call the plumber ${marker}` },
      { text: `milk the cows ${marker}`, priority: 'low' },
    ]) {
      const note = (await callOK('add_note', args)).structuredContent;
      assert.equal(note.text, args.text);
      assert.equal(note.priority, args.priority ?? 'normal');
      assert.ok(Math.abs(Date.parse(note.created) - Date.now()) < 60_000, `created ${note.created}`);
      added.push(note);
    }
    assert.deepEqual((await callOK('get_note', { id: added[0].id })).structuredContent, added[0]);
    const found = (await callOK('search_notes', { query: 'MILK' })).structuredContent.result;
    assert.deepEqual(found.map((n) => n.id), [added[2].id, added[0].id], 'case-insensitive, newest first');
    assert.deepEqual((await callOK('search_notes', { query: 'milk', limit: 1 })).structuredContent.result.map((n) => n.id),
      [added[2].id]);
    assert.deepEqual((await callOK('search_notes', { query: `no such ${marker}` })).structuredContent, { result: [] });
    const rep = (await callOK('reindex', {})).structuredContent;
    assert.equal(rep.notes, 3);
    const gone = await callOK('delete_note', { id: added[1].id });
    assert.ok(!gone.isError);
    const again = await s.client.callTool({ name: 'get_note', arguments: { id: added[1].id } });
    assert.ok(again.isError && textOf(again).includes(added[1].id), `get_note of a deleted note: ${JSON.stringify(again)}`);
  });

  test('schema-violating arguments give isError naming the field', async () => {
    const cases = [
      ['search_notes', { query: 5 }, 'query'], // wrong type
      ['search_notes', { query: 'x', limit: 'ten' }, 'limit'],
      ['search_notes', {}, 'query'], // missing required
      ['search_notes', { query: 'x', lmit: 3 }, 'lmit'], // unknown field
      ['add_note', { text: 'a'.repeat(10001) }, 'text'], // too long
      ['add_note', { text: 'x', priority: 'urgent' }, 'priority'], // not in the enum
      ['add_note', { text: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags'], // too many
      ['get_note', { id: 7 }, 'id'],
      ['reindex', { verbose: true }, 'verbose'],
    ];
    const failures = []; // all of them, not just the first
    for (const [name, args, field] of cases) {
      const res = await s.client.callTool({ name, arguments: args });
      if (res.isError !== true) failures.push(`${name}(${brief(args)}): isError ${res.isError}, result ${brief(res)}`);
      else if (!new RegExp(`\\b${field}\\b`).test(textOf(res))) {
        failures.push(`${name}(${brief(args)}): error ${JSON.stringify(textOf(res))} does not name ${field}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('an unknown tool is JSON-RPC error -32602', async () => {
    await assert.rejects(s.client.callTool({ name: 'no_such_tool', arguments: {} }), (err) => {
      assert.ok(err instanceof McpError, `${err}`);
      assert.equal(err.code, -32602);
      return true;
    });
  });

  test('progress: strictly increasing, none after the response', async () => {
    const seen = [];
    let resolved = false;
    const errorsBefore = s.errors.length;
    const res = await callOK('reindex', {}, {
      onprogress: (p) => seen.push({ ...p, afterResolve: resolved }),
    });
    resolved = true;
    const doneAt = performance.now();
    await sleep(200);
    const notes = res.structuredContent.notes;
    // The wire is the judge: the SDK uses the request id as the progress token.
    const callId = s.sent.findLast((m) => m.msg.method === 'tools/call').msg.id;
    const wire = wireFor(s, callId);
    const show = () => wire.map((w) => w.line).join('\n');
    const respAt = wire.findIndex(({ msg }) => msg.id === callId);
    assert.ok(respAt >= 0, 'the response is on the wire');
    assert.equal(respAt, wire.length - 1, `messages after the response:\n${show()}`);
    assert.ok(wire.every((w) => w.at <= doneAt), 'nothing for this call after it resolved');
    const values = wire.slice(0, respAt).map(({ msg }) => msg.params.progress);
    assert.equal(values.length, notes, `one progress per note:\n${show()}`);
    for (let i = 1; i < values.length; i++) assert.ok(values[i] > values[i - 1], `not strictly increasing:\n${show()}`);
    for (const { msg } of wire.slice(0, respAt)) {
      if (msg.params.total !== undefined) assert.ok(msg.params.progress <= msg.params.total, show());
    }
    // What the SDK handed to onprogress: increasing, and never after the
    // result. It may miss the last one: it dispatches a notification after a
    // response that directly follows it, then reports the token as unknown
    // (typescript-sdk issue 2580); the wire check above shows whose fault.
    assert.ok(seen.length >= 1, 'onprogress was called');
    for (let i = 0; i < seen.length; i++) {
      assert.ok(!seen[i].afterResolve, `onprogress after the response resolved: ${JSON.stringify(seen)}`);
      if (i > 0) assert.ok(seen[i].progress > seen[i - 1].progress, `onprogress not increasing: ${JSON.stringify(seen)}`);
    }
    const other = s.errors.slice(errorsBefore).filter((e) => !/progress notification for an unknown token/.test(e));
    assert.deepEqual(other.map(String), [], 'the SDK reported no other errors');
  });

  test('cancellation: no response and no further progress', async () => {
    for (let i = 0; i < 30; i++) await callOK('add_note', { text: `filler note ${i} ${marker}` });
    const controller = new AbortController();
    let first; // the first progress and when it came
    const started = performance.now();
    const call = s.client.callTool({ name: 'reindex', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (controller.signal.aborted) return;
        first = { ...p, at: performance.now() };
        controller.abort('interop-cancel');
      },
    });
    await assert.rejects(call, (err) => {
      assert.ok(err instanceof McpError && /interop-cancel/.test(err.message), `the SDK raised the abort: ${err}`);
      return true;
    });
    const cancel = await (async () => {
      for (let i = 0; i < 100; i++) {
        const c = s.sent.find((m) => m.msg.method === 'notifications/cancelled');
        if (c) return c;
        await sleep(10);
      }
      return undefined;
    })();
    assert.ok(cancel, 'the SDK sent notifications/cancelled');
    const token = cancel.msg.params.requestId;
    // Wait well past the time the whole reindex would take at the pace of its
    // first note, so that a server that did not stop would be caught.
    const full = (first.total ?? 0) * (first.at - started);
    const until = performance.now() + 1000 + 1.5 * full;
    if (kind !== 'stdio') {
      // Over HTTP the server's log witnesses that the tool saw its context
      // end (examples/notes logs a call that ends in an error), and when.
      const want = 'method=Reindex err="context canceled"';
      while (!s.stderr.includes(want) && performance.now() < until) await sleep(2);
      assert.ok(s.stderr.includes(want), `the server never logged the reindex ending with a cancelled context:\n${s.stderr}`);
      assert.ok(performance.now() - started < full,
        `the reindex stopped ${Math.round(performance.now() - started)}ms after it started, no sooner than it would have finished`);
    }
    await sleep(until - performance.now());
    const grace = GRACE; // ms: what the server wrote before it read the cancellation
    for (const w of wireFor(s, token)) {
      assert.ok(w.msg.method, `a response arrived for the cancelled call ${Math.round(w.at - cancel.at)}ms after ` +
        `the cancellation: ${w.line}`);
      assert.ok(w.at - cancel.at <= grace, `progress ${Math.round(w.at - cancel.at)}ms after the cancellation: ${w.line}`);
    }
    if (kind === 'streamable-http') {
      // The SDK resumes the cancelled call's stream (GET with Last-Event-ID)
      // after the server's retry interval; the server must end it so that
      // the client stops, with no error and no second stream (issue 16: it
      // used to get an empty 200, then a plain GET, then 409).
      const resumed = () => s.exchanges.find((e) => e.method === 'GET' && e.lastEventId && e.at > cancel.at && e.status);
      for (const deadline = performance.now() + 5000; !resumed() && performance.now() < deadline;) await sleep(10);
      const r = resumed();
      assert.ok(r, `the SDK resumed the cancelled call's stream: ${JSON.stringify(s.exchanges.slice(-4))}`);
      assert.equal(r.status, 204, `the resume of the ended stream: ${JSON.stringify(r)}`);
      await sleep(1500); // past another retry interval: nothing more may follow
      const later = s.exchanges.filter((e) => e.at > cancel.at && (e.method === 'GET' || e.status >= 400));
      assert.deepEqual(later.map((e) => `${e.method} ${e.status} ${e.lastEventId ?? ''}`), [`GET 204 ${r.lastEventId}`],
        'after the cancellation, one resume answered 204 and nothing else');
    }
    const after = await callOK('search_notes', { query: `filler note 29 ${marker}` });
    assert.equal(after.structuredContent.result.length, 1, 'the server still serves');
    checkStrict(s, `${kind}, after the cancellation`);
  });
  if (kind === 'streamable-http') {
    test('session DELETE: terminateSession, then the old session id gets 404', async () => {
      const id = s.transport.sessionId;
      assert.ok(id, 'the server gave the session an Mcp-Session-Id');
      assert.ok(s.exchanges.some((e) => e.setSession === id), 'the id came in a response header');
      await s.transport.terminateSession();
      const del = s.exchanges.filter((e) => e.method === 'DELETE');
      assert.equal(del.length, 1, `one DELETE: ${JSON.stringify(del)}`);
      assert.equal(del[0].session, id, 'the DELETE names the session');
      assert.ok(del[0].status >= 200 && del[0].status < 300, `DELETE answered ${del[0].status}`);
      const res = await fetch(s.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json', accept: 'application/json, text/event-stream',
          'mcp-session-id': id, 'mcp-protocol-version': s.protocolVersion,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      const body = await res.text();
      assert.equal(res.status, 404, `POST in the deleted session: ${res.status} ${body}`);
      assert.ok(JSON.parse(body).error, `the 404 carries a JSON-RPC error: ${body}`);
    });
  }

  if (kind === 'sse') {
    test('closing the SSE stream ends the session: its endpoint gets 404', async () => {
      assert.equal(s.endpoints.length, 1, `one endpoint event: ${JSON.stringify(s.endpoints)}`);
      const endpoint = new URL(s.endpoints[0], s.url);
      assert.match(endpoint.search, /[?&]sessionId=[^&]+/);
      await closeClient(s, 'sse');
      let res;
      let body;
      for (const deadline = performance.now() + 5000; performance.now() < deadline;) {
        res = await fetch(endpoint, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        });
        body = await res.text();
        if (res.status === 404) break;
        await sleep(10);
      }
      assert.equal(res.status, 404, `POST to the closed session's endpoint: ${res.status} ${body}`);
    });
  }
});
