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

  test('elicitation and sampling: answered on another replica than the one asking', async () => {
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
