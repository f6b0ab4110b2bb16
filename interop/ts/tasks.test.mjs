// Drives examples/tasks (Archive.Compact, a tool that runs only as a task of
// the Tasks extension, io.modelcontextprotocol/tasks) with a tasks client
// nobody here wrote: @modelcontextprotocol/ext-tasks (pinned in
// package-lock.json) on the official TypeScript SDK 2.x Client, over
// Streamable HTTP in 2026-07-28 (2025-11-25 at the end). Each test does
// what a user of the package does: callTool, then settle; answers the
// confirmation the task asks for midway; cancels a running task; picks a
// task up by its ID from a new session after the first one disconnected;
// reads a task that does not exist; examples/conformance's task tools (a
// tool error, a protocol error, two questions at once, a question before
// the task); and three replicas on Redis behind a round-robin proxy (one
// killed while tasks run). Results are compared with what rpcgen's own Go client
// (interop/cmd/taskcall) gets for the same call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  DispatchError, JsonRpcResponseError, TaskCancelledError, TaskFailedError, createTaskSessionFromClient, resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';

import { featuresServerCommand, note, replicasCommand, taskcallBinary, tasksServerCommand } from './harness.mjs';

const EXT = 'io.modelcontextprotocol/tasks';
const VERSION = '2026-07-28';
const CLIENT_INFO = { name: 'interop-ext-tasks', version: '1.0.0' };
const QUESTION = (done, of) => `Compacted ${done} of ${of} batches. Go on, and delete the originals?`;

/**
 * Starts a server over HTTP (cmd: examples/tasks by default): its URL, its
 * stderr so far, logLine, a stop function.
 */
async function startServer(cmd = tasksServerCommand()) {
  const child = spawn(cmd.command, cmd.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const server = { stderr: '', waiters: [] };
  child.stderr.on('data', (d) => {
    server.stderr += d;
    server.waiters = server.waiters.filter((w) => !w());
  });
  server.url = await new Promise((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`no URL from ${cmd.command} within 20s; stderr:\n${server.stderr}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) { clearTimeout(timer); res(out.slice(0, nl).trim()); }
    });
    child.on('exit', (code) => { clearTimeout(timer); rej(new Error(`${cmd.command} exited (${code}); stderr:\n${server.stderr}`)); });
  });
  /** Resolves with the first stderr line matching re, once the server writes it. */
  server.logLine = (re) => new Promise((res) => {
    const look = () => {
      const line = server.stderr.split('\n').find((l) => re.test(l));
      if (line !== undefined) res(line);
      return line !== undefined;
    };
    if (!look()) server.waiters.push(look);
  });
  server.signal = (sig) => child.kill(sig);
  server.stop = () => new Promise((res) => {
    if (child.exitCode !== null) return res();
    child.on('exit', () => res());
    child.kill('SIGTERM');
  });
  return server;
}

/**
 * The host's raw request path that ext-tasks asks for in 2026-07-28
 * (rawDispatch: the SDK Client's codecs do not carry task results): one
 * JSON-RPC request POSTed with the headers of the 2026-07-28 Streamable HTTP
 * transport (MCP-Protocol-Version, Mcp-Method, and Mcp-Name: the tool's
 * name on tools/call; on tasks/* the package sets it to the task ID), its
 * answer read from a JSON body or an SSE stream. Every exchange is kept in
 * wire.
 */
function rawDispatcher(url, wire) {
  let id = 0;
  return async (request, options) => {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': request.method,
    });
    for (const [k, v] of Object.entries(options?.context?.headers ?? {})) headers.set(k, v);
    if (request.method === 'tools/call' && !headers.has('mcp-name')) headers.set('mcp-name', request.params.name);
    const body = { jsonrpc: '2.0', id: `ext-tasks-${++id}`, ...request };
    const exchange = { method: request.method, params: request.params, headers: Object.fromEntries(headers) };
    wire.push(exchange);
    // A gateway error or a broken connection may or may not have reached
    // the server: the package may retry (DispatchError, retryable) all but
    // the creating call, which is not idempotent.
    const retryable = request.method !== 'tools/call';
    let res, text;
    try {
      res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: options?.signal });
      text = await res.text();
    } catch (err) {
      if (options?.signal?.aborted) throw err;
      exchange.status = 'connection lost';
      throw new DispatchError(`${request.method}: ${err.message}`, retryable, { cause: err });
    }
    exchange.status = res.status;
    if ([502, 503, 504].includes(res.status)) throw new DispatchError(`${request.method}: HTTP ${res.status}`, retryable);
    let msg;
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const m = JSON.parse(line.slice(5));
        if (m.id === body.id) msg = m;
      }
    } else if (text !== '') {
      msg = JSON.parse(text);
    }
    if (!msg || (msg.result === undefined && msg.error === undefined)) {
      throw new Error(`${request.method}: HTTP ${res.status} with no JSON-RPC answer: ${text}`);
    }
    exchange.answer = msg;
    return msg.error ? { kind: 'error', error: msg.error } : { kind: 'result', result: msg.result };
  };
}

/**
 * Opens a 2026-07-28 subscriptions/listen stream for taskIds, as a host
 * does beside rawDispatch (the SDK Client's listen() has no taskIds), and
 * hands each notification on it to deliver. Resolves, once the stream is
 * open, with the messages so far (the acknowledgement, then
 * notifications/tasks) and a close function; ends by itself after a
 * notifications/tasks in a terminal status.
 */
async function listenTasks(url, taskIds, deliver) {
  const abort = new AbortController();
  const body = {
    jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen',
    params: {
      notifications: { taskIds },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': VERSION,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } },
      },
    },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const messages = [];
  const done = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body) {
        buf += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const event = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('\n');
          if (!data) continue;
          const msg = JSON.parse(data);
          messages.push(msg);
          if (msg.method === 'notifications/tasks') {
            await deliver(msg);
            if (['completed', 'failed', 'cancelled'].includes(msg.params.status)) abort.abort();
          }
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  })();
  return { messages, done, close: () => abort.abort() };
}

/**
 * A connected SDK Client (pinned to 2026-07-28, declaring the extension and
 * form elicitation) and an ext-tasks session over it. The reply to an
 * elicitation comes from the call's applicationContext: answers[inputId],
 * else answer, else a decline; asked keeps every input request the package
 * routed to the application.
 */
async function openSession(url, endpointId) {
  const capabilities = { extensions: { [EXT]: {} }, elicitation: { form: {} } };
  const client = new Client(CLIENT_INFO, { capabilities, versionNegotiation: { mode: { pin: VERSION } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const wire = [];
  const asked = [];
  const errors = [];
  const session = createTaskSessionFromClient(client, {
    endpointId,
    rawDispatch: rawDispatcher(url, wire),
    v2RequestFraming: { protocolVersion: VERSION, clientInfo: CLIENT_INFO, clientCapabilities: { elicitation: { form: {} } } },
    onInputRequest: async (request, context) => {
      asked.push({ request, context });
      const app = context.applicationContext;
      return app?.answers?.[context.inputId] ?? app?.answer ?? { action: 'decline' };
    },
    onError: (err) => errors.push(err),
  });
  return { client, session, wire, asked, errors };
}

/** Runs rpcgen's Go client for the same call: its exit status, stdout and stderr. */
function goClient(url, tool, args, answer = 'decline') {
  return spawnSync(taskcallBinary(), ['-url', url, '-tool', tool, '-args', JSON.stringify(args), '-answer', answer], { encoding: 'utf8', timeout: 60_000 });
}

/** What rpcgen's Go client gets for the same call (its CallToolResult). */
function goClientResult(url, tool, args, answer) {
  const run = goClient(url, tool, args, answer);
  assert.equal(run.status, 0, `taskcall: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** The parts of a CallToolResult a user reads (the server's _meta aside). */
function toolResult(r) {
  return { content: r.content, structuredContent: r.structuredContent, isError: r.isError ?? false };
}

describe(`@modelcontextprotocol/ext-tasks client, examples/tasks over Streamable HTTP (${VERSION})`, () => {
  let server;
  const open = [];

  before(async () => { server = await startServer(); });
  after(async () => {
    for (const s of open) {
      await s.session.close().catch((err) => note(`session close: ${err}`));
      await s.client.close().catch((err) => note(`client close: ${err}`));
    }
    await server?.stop();
  });

  async function session(endpointId = 'interop-examples-tasks') {
    const s = await openSession(server.url, endpointId);
    open.push(s);
    return s;
  }

  test('the package sees the server speak Tasks (v2) with every capability', async () => {
    const { client, session: ts } = await session();
    assert.equal(client.getNegotiatedProtocolVersion(), VERSION);
    assert.deepEqual(client.getServerCapabilities()?.extensions?.[EXT], {}, 'the extension, with no settings, as the specification says');
    assert.deepEqual({ ...ts.capabilities }, {
      inventory: 'known-handles', execution: true, cancellation: true, inputResponses: true, requestedRetention: false,
    });
  });

  for (const [answer, goAnswer, expected] of [
    [{ action: 'accept', content: { delete: true } }, '{"delete":true}', { compacted: 4, deleted: true }],
    [{ action: 'decline' }, 'decline', { compacted: 2, deleted: false }],
  ]) {
    test(`runs compact to its end, answering the confirmation midway (${answer.action}), as rpcgen's Go client does`, async () => {
      const s = await session();
      const execution = await s.session.callTool('compact', { batches: 4 }, { applicationContext: { answer } });
      assert.equal(execution.kind, 'task', 'compact runs only as a task');
      const taskId = execution.handle.taskId;
      assert.match(taskId, /^[0-9a-f]{32}$/);
      const { outcome, lastTask } = await execution.settle();
      assert.equal(outcome.status, 'completed', `outcome: ${JSON.stringify(outcome)}`);
      const result = resultFromTaskOutcome(outcome);
      assert.deepEqual(result.structuredContent, expected);
      assert.deepEqual(JSON.parse(result.content[0].text), expected, 'the text block repeats the structured result');
      assert.equal(lastTask?.status, 'completed');
      assert.equal(lastTask?.taskId, taskId);

      // The question reached the application once, as the task's input request.
      assert.equal(s.asked.length, 1, `asked: ${JSON.stringify(s.asked)}`);
      const [{ request, context }] = s.asked;
      assert.equal(request.kind, 'elicitation');
      assert.equal(request.params.message, QUESTION(2, 4));
      assert.deepEqual(request.params.requestedSchema.required, ['delete']);
      assert.equal(context.scope, 'task');
      assert.equal(context.delivery, 'task-update');
      assert.equal(context.taskId, taskId);
      assert.equal(context.inputId, 'confirm');
      assert.deepEqual(s.errors, []);

      // On the wire: created by tools/call, followed with tasks/get, answered
      // with one tasks/update; each tasks/* request names the task in Mcp-Name.
      const methods = s.wire.map((e) => e.method);
      assert.equal(methods[0], 'tools/call');
      assert.equal(s.wire[0].answer.result.resultType, 'task');
      assert.deepEqual(methods.filter((m) => m === 'tasks/update'), ['tasks/update']);
      assert.ok(methods.includes('tasks/get'));
      for (const e of s.wire.slice(1)) {
        assert.equal(e.headers['mcp-name'], taskId, `${e.method}: ${JSON.stringify(e.headers)}`);
        assert.equal(e.answer.result?.resultType, 'complete', `${e.method}: ${JSON.stringify(e.answer)}`);
      }

      const fromGo = goClientResult(server.url, 'compact', { batches: 4 }, goAnswer);
      assert.deepEqual(toolResult(result), toolResult(fromGo), 'the same result as rpcgen\'s Go client');
    });
  }

  test('cancels a running task: it ends cancelled, and the tool\'s context ends', async () => {
    const s = await session();
    // 9999 batches of 50 ms, the question at batch 4999: it runs until cancelled.
    const execution = await s.session.callTool('compact', { batches: 9999 });
    assert.equal(execution.kind, 'task');
    const taskId = execution.handle.taskId;
    const controller = s.session.task(taskId);
    const running = await controller.snapshot();
    assert.equal(running.status, 'working', `before the cancel: ${JSON.stringify(running.raw)}`);

    await execution.cancel();
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'cancelled');
    assert.throws(() => resultFromTaskOutcome(outcome), TaskCancelledError);

    // The server's view, read again: cancelled, with no result.
    const ended = await controller.snapshot();
    assert.equal(ended.status, 'cancelled', `after the cancel: ${JSON.stringify(ended.raw)}`);
    assert.equal(ended.raw.result, undefined);
    assert.equal(ended.raw.error, undefined);
    const cancels = s.wire.filter((e) => e.method === 'tasks/cancel');
    assert.equal(cancels.length, 1);
    assert.equal(cancels[0].headers['mcp-name'], taskId);

    // The Go function saw its context end, with the cancellation as cause.
    const line = await server.logLine(/msg="compaction stopped" batches=9999 /);
    assert.match(line, /cause="the task was cancelled"/, line);
    assert.deepEqual(s.errors, []);
  });

  test('recovers a task by its ID from a new session after the first disconnected', async () => {
    const first = await session('interop-recovery');
    const execution = await first.session.callTool('compact', { batches: 6 });
    assert.equal(execution.kind, 'task');
    let saved;
    await execution.handoff((reference) => { saved = JSON.parse(JSON.stringify(reference)); });
    assert.deepEqual(saved, { endpointId: 'interop-recovery', generation: 'v2', taskId: execution.handle.taskId, originalOperation: 'tools/call' });
    // A bug of ext-tasks 0.2.2, not of the server: handoff() (and detach())
    // resolve before the session stops tracking the execution (it does so
    // when the execution's result settles, some microtasks later), and
    // session.close() cancels (tasks/cancel) every execution it still
    // tracks that has not settled: closing the session right after a
    // handoff cancels the task handed off, against the package's own
    // "releases local ownership without cancelling the remote task". Waiting
    // for the detached execution's result first avoids it.
    await execution.result();
    await first.session.close();
    await first.client.close(); // the connection is gone; the task runs on, and waits for its confirmation
    assert.deepEqual(first.wire.map((e) => e.method), ['tools/call'], 'the first session sent no tasks/cancel');

    const second = await session('interop-recovery');
    const resumed = await second.session.resumeTask(saved, { applicationContext: { answer: { action: 'accept', content: { delete: true } } } });
    assert.equal(resumed.kind, 'task');
    assert.equal(resumed.handle.taskId, saved.taskId);
    const { outcome } = await resumed.settle();
    assert.equal(outcome.status, 'completed', `outcome: ${JSON.stringify(outcome)}`);
    assert.deepEqual(resultFromTaskOutcome(outcome).structuredContent, { compacted: 6, deleted: true });
    assert.equal(first.asked.length, 0, 'the first session never saw the question');
    assert.equal(second.asked.length, 1);
    assert.equal(second.asked[0].request.params.message, QUESTION(3, 6));
    assert.equal(second.asked[0].context.taskId, saved.taskId);
    assert.deepEqual(second.wire.filter((e) => e.method === 'tools/call'), [], 'the new session did not call the tool again');
  });

  test('status notifications (subscriptions/listen) handed to the package pass its schema and carry the task to its end', async () => {
    const s = await session();
    const answer = { action: 'accept', content: { delete: true } };
    const execution = await s.session.callTool('compact', { batches: 4 }, { applicationContext: { answer } });
    const taskId = execution.handle.taskId;
    // The package validates each notifications/tasks with its own wire
    // schema (TaskStatusNotificationV2Schema) and reports one that fails
    // to onError (s.errors); it is reached through the hook its adapter
    // installed on the SDK Client.
    const listen = await listenTasks(server.url, [taskId], (n) => s.client.fallbackNotificationHandler(n));
    const { outcome } = await execution.settle();
    await listen.done;
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(resultFromTaskOutcome(outcome).structuredContent, { compacted: 4, deleted: true });
    assert.deepEqual(s.errors, [], 'the package accepted every notification');

    const [ack, ...rest] = listen.messages;
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged', JSON.stringify(ack));
    assert.deepEqual(ack.params.notifications.taskIds, [taskId]);
    assert.ok(rest.length >= 2, `notifications: ${JSON.stringify(rest)}`);
    for (const n of rest) {
      assert.equal(n.method, 'notifications/tasks');
      assert.equal(n.params.taskId, taskId);
    }
    const statuses = rest.map((n) => n.params.status);
    assert.ok(statuses.includes('input_required'), `statuses: ${statuses}`);
    assert.deepEqual(rest.find((n) => n.params.status === 'input_required').params.inputRequests.confirm.params.message, QUESTION(2, 4));
    const last = rest.at(-1).params;
    assert.equal(last.status, 'completed', `statuses: ${statuses}`);
    assert.deepEqual(last.result.structuredContent, { compacted: 4, deleted: true });
  });

  test('a task ID the server does not know is a clear -32602 error', async () => {
    const s = await session();
    const unknown = '0123456789abcdef0123456789abcdef';
    const notFound = (err) => {
      assert.ok(err instanceof JsonRpcResponseError, `error: ${err?.stack ?? err}`);
      assert.equal(err.code, -32602, `error: ${err.message}`);
      assert.match(err.message, /Task not found/);
      return true;
    };
    await assert.rejects(s.session.task(unknown).snapshot(), notFound);
    await assert.rejects(s.session.resumeTask({ endpointId: 'interop-examples-tasks', generation: 'v2', taskId: unknown, originalOperation: 'tools/call' }), notFound);
    await assert.rejects(s.session.task(unknown).cancel(), notFound);
    await assert.rejects(s.session.task(unknown).update({ confirm: { action: 'accept', content: { delete: true } } }), notFound);
  });
});

describe(`@modelcontextprotocol/ext-tasks client, examples/conformance's task tools over Streamable HTTP (${VERSION})`, () => {
  let server;
  const open = [];

  before(async () => { server = await startServer(featuresServerCommand(true)); });
  after(async () => {
    for (const s of open) {
      await s.session.close().catch((err) => note(`session close: ${err}`));
      await s.client.close().catch((err) => note(`client close: ${err}`));
    }
    await server?.stop();
  });

  async function session() {
    const s = await openSession(server.url, 'interop-conformance');
    open.push(s);
    return s;
  }

  /** Calls tool as the package's user does: callTool, settle. */
  async function run(s, tool, args, applicationContext) {
    const execution = await s.session.callTool(tool, args, { applicationContext });
    const settlement = await execution.settle();
    return { execution, ...settlement };
  }

  test('a tool error ends the task completed with isError, as for rpcgen\'s Go client', async () => {
    const s = await session();
    const { execution, outcome } = await run(s, 'failing_job', {});
    assert.equal(execution.kind, 'task');
    assert.equal(outcome.status, 'completed', `outcome: ${JSON.stringify(outcome)}`);
    const result = resultFromTaskOutcome(outcome);
    assert.equal(result.isError, true);
    assert.deepEqual(result.content, [{ type: 'text', text: 'the job failed, as it always does' }]);
    assert.deepEqual(toolResult(result), toolResult(goClientResult(server.url, 'failing_job', {}, 'decline')));
  });

  test('a protocol error ends the task failed: TaskFailedError with the JSON-RPC error', async () => {
    const s = await session();
    const { outcome } = await run(s, 'protocol_error_job', {});
    assert.equal(outcome.status, 'failed', `outcome: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.task?.status, 'failed');
    assert.throws(() => resultFromTaskOutcome(outcome), (err) => {
      assert.ok(err instanceof TaskFailedError, `error: ${err?.stack ?? err}`);
      assert.equal(err.code, -32603);
      assert.equal(err.message, 'the job broke down');
      return true;
    });
    const fromGo = goClient(server.url, 'protocol_error_job', {});
    assert.notEqual(fromGo.status, 0, 'rpcgen\'s Go client fails too');
    assert.match(fromGo.stderr, /the job broke down/);
  });

  test('two questions at once: both reach the application, each answered once', async () => {
    const s = await session();
    const answers = { first: { action: 'accept', content: { name: 'Ada' } }, second: { action: 'accept', content: { name: 'Grace' } } };
    const { execution, outcome } = await run(s, 'multi_input', {}, { answers });
    assert.deepEqual(resultFromTaskOutcome(outcome).content, [{ type: 'text', text: 'first: Ada, second: Grace' }]);
    assert.deepEqual(s.asked.map((a) => [a.context.inputId, a.request.params.message, a.context.taskId]).sort(),
      [['first', 'Your first answer?', execution.handle.taskId], ['second', 'Your second answer?', execution.handle.taskId]]);
    // Each key answered once (in one tasks/update when a poll saw both
    // questions; the server adds them one after the other, so a poll may
    // fall between).
    const answered = s.wire.filter((e) => e.method === 'tasks/update').flatMap((e) => Object.keys(e.params.inputResponses));
    assert.deepEqual(answered.sort(), ['first', 'second']);
  });

  test('a question on the call itself (input_required, then a task): answered by a retry, then followed', async () => {
    const s = await session();
    const { execution, outcome } = await run(s, 'test_tool_with_task', {}, { answer: { action: 'accept', content: { name: 'Ada' } } });
    assert.equal(execution.kind, 'task');
    assert.deepEqual(resultFromTaskOutcome(outcome).content, [{ type: 'text', text: 'Hello, Ada!' }]);
    assert.equal(s.asked.length, 1);
    const [{ request, context }] = s.asked;
    assert.equal(request.params.message, 'What is your name?');
    assert.equal(context.scope, 'request');
    assert.equal(context.delivery, 'request-retry');
    assert.equal(context.inputId, 'user_name');
    const calls = s.wire.filter((e) => e.method === 'tools/call');
    assert.equal(calls.length, 2, 'the call, then its retry with the answer');
    assert.equal(calls[0].answer.result.resultType, 'input_required');
    assert.deepEqual(calls[1].params.inputResponses, { user_name: { action: 'accept', content: { name: 'Ada' } } });
    assert.equal(calls[1].params.requestState, calls[0].answer.result.requestState);
    assert.equal(calls[1].answer.result.resultType, 'task');
  });

  test('a tool that never runs as a task is answered at once', async () => {
    const s = await session();
    const { execution, outcome } = await run(s, 'greet', { name: 'Ada' });
    assert.equal(execution.kind, 'immediate');
    assert.deepEqual(resultFromTaskOutcome(outcome).content, [{ type: 'text', text: 'Hello, Ada!' }]);
    assert.deepEqual(s.wire.map((e) => e.method), ['tools/call']);
  });
});

describe(`@modelcontextprotocol/ext-tasks client, three replicas on Redis behind a round-robin proxy (${VERSION})`, () => {
  // ext/redis's internal/replica --cluster 3: tasks in the Redis store, run
  // by any replica's workers; its tool job runs ms milliseconds as a task
  // and names the replica that ran it, job_idem is job declared idempotent.
  let cluster;
  const open = [];

  before(async () => { cluster = await startServer(replicasCommand()); });
  after(async () => {
    for (const s of open) {
      await s.session.close().catch((err) => note(`session close: ${err}`));
      await s.client.close().catch((err) => note(`client close: ${err}`));
    }
    await cluster?.stop();
  });

  async function session() {
    const s = await openSession(cluster.url, 'interop-replicas');
    open.push(s);
    return s;
  }

  test('a task created through one replica is followed through the others to its end', async () => {
    const s = await session();
    const execution = await s.session.callTool('job', { tag: 'followed', ms: 600 });
    assert.equal(execution.kind, 'task');
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'completed', `outcome: ${JSON.stringify(outcome)}`);
    const result = resultFromTaskOutcome(outcome);
    assert.equal(result.structuredContent.tag, 'followed');
    assert.ok(['0', '1', '2'].includes(result.structuredContent.replica), JSON.stringify(result));
    // The proxy sends each request to the next replica, and nothing else
    // went through it meanwhile: three or more requests for the task
    // (the creation, then tasks/get) reached each of the three replicas.
    assert.ok(s.wire.length >= 3, `requests: ${JSON.stringify(s.wire.map((e) => e.method))}`);
    assert.deepEqual(s.errors, []);
  });

  test('a replica killed (SIGKILL) while tasks run: every task still ends completed', async () => {
    const s = await session();
    const tags = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    const executions = await Promise.all(tags.map((tag) => s.session.callTool('job_idem', { tag, ms: 1500 })));
    const settling = executions.map((e) => e.settle());
    const killed = cluster.logLine(/cluster: killed replica/);
    cluster.signal('SIGUSR1');
    note(await killed);
    const outcomes = await Promise.all(settling);
    assert.deepEqual(outcomes.map((o) => o.outcome.status), tags.map(() => 'completed'), JSON.stringify(outcomes.map((o) => o.outcome)));
    assert.deepEqual(outcomes.map((o) => resultFromTaskOutcome(o.outcome).structuredContent.tag), tags);
    assert.deepEqual(s.errors, []);
  });
});

describe('@modelcontextprotocol/ext-tasks client, examples/tasks over Streamable HTTP (2025-11-25)', () => {
  let server;
  before(async () => { server = await startServer(); });
  after(async () => { await server?.stop(); });

  // ext-tasks speaks that revision's own tasks (its "v1": the tasks
  // capability in initialize, a task param on tools/call, tasks/result),
  // which rpcgen does not implement: rpcgen serves the extension only, in a
  // legacy session to a client that declared it in initialize. The package
  // does not use the extension in a legacy session (it reads only the tasks
  // capability there), so it finds no tasks and calls tools as plain tools;
  // a tool that runs only as a task is then refused with -32021 naming the
  // extension. (A client that declares the extension in initialize all the
  // same gets the task, which the package then fails to decode: "Protocol
  // value failed schema validation"; it should not declare what it does not
  // handle.)
  test('the package finds no tasks and gets -32021 naming the extension for a task-only tool', async () => {
    const client = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const session = createTaskSessionFromClient(client, { endpointId: 'interop-legacy' });
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      assert.equal(session.capabilities.execution, false);
      await assert.rejects(session.callTool('compact', { batches: 2 }), (err) => {
        assert.ok(err instanceof JsonRpcResponseError, `error: ${err?.stack ?? err}`);
        assert.equal(err.code, -32021, err.message);
        assert.deepEqual(err.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
        return true;
      });
    } finally {
      await session.close();
      await client.close();
    }
  });
});
