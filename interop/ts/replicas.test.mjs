// Drives three replicas of one MCP server, sharing a real redis-server,
// through a round-robin reverse proxy that sends each request to the next
// replica (ext/redis's internal/replica --cluster 3), with the official
// TypeScript SDK client in a 2025-11-25 session over Streamable HTTP: every
// request of the session, the answers to the server's elicitation and
// sampling requests and notifications/cancelled included, lands on the next
// replica. Tools, progress, cancellation, subscriptions, elicitation and
// sampling.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import {
  CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, McpError,
  ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { checkStrict, closeClient, connectHTTP, note, replicasCommand } from './harness.mjs';

const WATCHED = 'test://watched';

describe('TypeScript SDK client, three replicas on Redis behind a round-robin proxy', () => {
  let s; // the session from connectHTTP()
  const updates = [];
  let onUpdate = () => {};
  const opts = {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    setup(client) {
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
      client.setRequestHandler(CreateMessageRequestSchema, async () =>
        ({ role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'interop-model', stopReason: 'endTurn' }));
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri); onUpdate(); });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => { updates.push('tools/list_changed'); onUpdate(); });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { updates.push(`log:${n.params.data?.text}`); onUpdate(); });
    },
  };

  before(async () => { s = await connectHTTP(replicasCommand(), 'streamable-http', opts); });
  after(async () => {
    let failure;
    try {
      await closeClient(s, 'replicas');
    } catch (err) {
      failure = err;
    }
    const exit = await s?.stop?.();
    if (s?.stderr) note(`cluster stderr:\n${s.stderr}`);
    if (failure) throw failure;
    if (exit) assert.deepEqual(exit, { code: 0, signal: null }, 'the cluster exits cleanly on SIGTERM');
    checkStrict(s, 'replicas, after the client closed');
  });

  /** Calls a tool; its structured result. */
  const call = async (name, args = {}, options = {}) => {
    const res = await s.client.callTool({ name, arguments: args }, undefined, options);
    assert.ok(!res.isError, `${name}: ${JSON.stringify(res)}`);
    return res.structuredContent;
  };

  test('a 2025-11-25 session', () => {
    assert.equal(s.protocolVersion, '2025-11-25');
    assert.ok(s.exchanges.some((e) => e.setSession), 'the initialize response set Mcp-Session-Id');
  });

  test('tools: three calls in a row run on the three replicas', async () => {
    const replicas = new Set();
    for (let k = 0; k < 3; k++) {
      const got = await call('echo', { k });
      assert.deepEqual(got.args, { k });
      replicas.add(got.replica);
    }
    assert.equal(replicas.size, 3, `the calls ran on replicas ${[...replicas]}`);
  });

  test('progress: every notification, in order, before the result', async () => {
    for (let k = 0; k < 3; k++) {
      const seen = [];
      const got = await call('count', { n: 4 }, { onprogress: (p) => seen.push(p.progress) });
      assert.equal(got.n, 4);
      assert.deepEqual(seen, [1, 2, 3, 4]);
    }
  });

  test('elicitation and sampling: the answer, POSTed to the next replica, reaches the one asking', async () => {
    for (let k = 0; k < 3; k++) {
      const asked = await call('ask');
      assert.equal(asked.action, 'accept');
      assert.deepEqual(asked.content, { name: 'Ada' });
      const sampled = await call('sample');
      assert.equal(sampled.text, 'sampled');
    }
  });

  /** Makes a call and waits until the session's stream brings what it hears. */
  const hear = async (what, name, args = {}) => {
    const heard = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: heard nothing within 10s, want ${what}`)), 10_000);
      onUpdate = () => { clearTimeout(timer); resolve(); };
    });
    const before = updates.length;
    await call(name, args);
    await heard;
    assert.deepEqual(updates.slice(before), [what], `${name}: what the session heard`);
  };

  test('the standalone stream, wherever it is, hears what each replica changes: resources/updated, list_changed, log messages', async () => {
    await s.client.subscribeResource({ uri: WATCHED });
    for (let k = 0; k < 3; k++) {
      await hear(WATCHED, 'touch');
      await hear('tools/list_changed', 'grow', { tag: randomUUID().replaceAll('-', '') });
      const text = randomUUID();
      await hear(`log:${text}`, 'announce', { text });
    }
    await s.client.unsubscribeResource({ uri: WATCHED });
  });

  test('cancellation: notifications/cancelled cancels the call on the replica running it', async () => {
    for (let k = 0; k < 3; k++) {
      const tag = randomUUID();
      const controller = new AbortController();
      const blocked = s.client.callTool({ name: 'block', arguments: { tag } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('interop-cancel'),
      });
      await assert.rejects(blocked, (err) => err instanceof McpError && /interop-cancel/.test(err.message));
      // cancelled waits (on Redis) until the call's replica saw it end.
      const seen = await call('cancelled', { tag });
      assert.equal(seen.cancelled, true, `block ${k}: the replica running it never saw its call cancelled`);
      // The harness records a message once its POST is answered, which
      // may come after the call's replica heard of it.
      const cancels = () => s.sent.filter((m) => m.msg.method === 'notifications/cancelled').length;
      const deadline = performance.now() + 5000;
      while (cancels() < k + 1 && performance.now() < deadline) await new Promise(setImmediate);
      assert.equal(cancels(), k + 1, 'the SDK sent notifications/cancelled, once per call');
    }
  });

  test('DELETE on one replica ends the session on every one', async () => {
    const id = s.transport.sessionId;
    assert.ok(id, 'the server gave the session an Mcp-Session-Id');
    await s.transport.terminateSession();
    const del = s.exchanges.filter((e) => e.method === 'DELETE');
    assert.equal(del.length, 1, `one DELETE: ${JSON.stringify(del)}`);
    assert.ok(del[0].status >= 200 && del[0].status < 300, `DELETE answered ${del[0].status}`);
    for (let k = 0; k < 3; k++) { // three requests in a row: each replica gets one
      const res = await fetch(s.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json', accept: 'application/json, text/event-stream',
          'mcp-session-id': id, 'mcp-protocol-version': s.protocolVersion,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      const body = await res.text();
      assert.equal(res.status, 404, `POST ${k} in the deleted session: ${res.status} ${body}`);
      assert.ok(JSON.parse(body).error, `the 404 carries a JSON-RPC error: ${body}`);
    }
  });
});

describe('TypeScript SDK client, a replica killed (SIGKILL) while its standalone stream is open', () => {
  let s;
  const heard = new Map(); // log text -> how many times
  let onLog = () => {};
  const opts = {
    setup(client) {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        const text = n.params.data?.text;
        heard.set(text, (heard.get(text) ?? 0) + 1);
        onLog(text);
      });
    },
  };
  before(async () => { s = await connectHTTP(replicasCommand(), 'streamable-http', opts); });
  after(async () => {
    try {
      await closeClient(s, 'replica killed');
    } finally {
      const exit = await s?.stop?.();
      if (s?.stderr) note(`cluster stderr:\n${s.stderr}`);
      if (exit) assert.deepEqual(exit, { code: 0, signal: null }, 'the cluster exits cleanly on SIGTERM');
    }
  });

  /** Sends a log message to every session and waits until this one heard it. */
  const announce = async (text) => {
    const got = new Promise((resolve) => { onLog = (t) => { if (t === text) resolve(); }; });
    await s.client.callTool({ name: 'announce', arguments: { text } });
    return got;
  };
  /** Waits, 20 s at most, for what. */
  const within = (what, p) => Promise.race([p, new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`${what} within 20s`)), 20_000).unref())]);

  test('the client resumes on another replica with Last-Event-ID: every message once', async () => {
    // The standalone GET opens after initialize: it is open once a message is heard.
    await within('the first message', announce('ready'));
    const gets = s.exchanges.filter((e) => e.method === 'GET');
    assert.equal(gets.length, 1, `one standalone GET: ${JSON.stringify(gets)}`);
    // The kill follows the last answer at once: the messages a call makes are stored before its answer.
    for (let k = 0; k < 5; k++) await s.client.callTool({ name: 'announce', arguments: { text: `m${k}` } });

    const killed = new Promise((resolve) => {
      const onData = (b) => {
        const m = /cluster: killed replica (\d+) with (\d+) streams open/.exec(String(b));
        if (m) { s.child.stderr.off('data', onData); resolve(Number(m[2])); }
      };
      s.child.stderr.on('data', onData);
    });
    s.child.kill('SIGUSR1');
    assert.equal(await within('the kill', killed), 1, 'the killed replica held the client\'s standalone stream');
    // Sent while the stream is down or resuming, on the replicas left.
    for (let k = 5; k < 10; k++) await s.client.callTool({ name: 'announce', arguments: { text: `m${k}` } });
    await within('the last message', announce('end'));

    for (let k = 0; k < 10; k++) assert.equal(heard.get(`m${k}`), 1, `m${k} heard ${heard.get(`m${k}`) ?? 0} times, want once`);
    const resumed = s.exchanges.filter((e) => e.method === 'GET' && e.lastEventId);
    assert.ok(resumed.length >= 1, `the stream resumed with Last-Event-ID: ${JSON.stringify(s.exchanges.filter((e) => e.method === 'GET'))}`);
    assert.equal(resumed[0].status, 200, 'the resumed stream was served');
    // The SDK reports the broken stream to onerror: that, and only that, was the kill's doing.
    const errors = s.errors.splice(0).map(String).filter((e) => !/SSE stream disconnected|terminated/.test(e));
    assert.deepEqual(errors, [], 'errors the SDK reported, besides the broken stream');
  });
});
