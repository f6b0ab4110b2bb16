// Shared pieces of the TypeScript SDK interop test: the server commands, a
// client connected over the SDK's StdioClientTransport with a tap on the raw
// bytes of the server's stdout, or over its StreamableHTTPClientTransport or
// SSEClientTransport with a tap on the raw bytes of every HTTP response, and
// JSON Schema 2020-12 checking with ajv.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Strict judgement (INTEROP_STRICT=1; run.sh sets it): a warning fails the
 * run. Everything written through console.warn and console.error (where the
 * SDK prints its warnings) and every process 'warning' is kept in warnings;
 * checkStrict then wants none, and no error the SDK reported to its onerror.
 * The tests' own diagnostics go to process.stderr directly (see note).
 */
export const strict = process.env.INTEROP_STRICT === '1';
const warnings = [];
if (strict) {
  for (const level of ['warn', 'error']) {
    const print = console[level].bind(console);
    console[level] = (...args) => {
      warnings.push(`console.${level}: ${args.map((a) => (a instanceof Error ? a.stack : String(a))).join(' ')}`);
      print(...args);
    };
  }
  process.on('warning', (w) => warnings.push(`process warning: ${w.name}: ${w.message}`));
}

/** Writes a diagnostic of the tests themselves, which strict mode does not count. */
export function note(text) {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * In strict mode, asserts that the session's SDK reported no error and that
 * no warning was printed, except what the wire shows is the SDK's own doing:
 * "a progress notification for an unknown token" when the notification came
 * before the response to its request (the SDK runs notification handlers a
 * microtask late, after a response read in the same chunk has removed the
 * token: typescript-sdk issue 2580), or within GRACE ms of the client's
 * cancellation of that request (sent before the server read it). Errors are
 * taken out of session.errors once judged.
 */
export function checkStrict(session, what) {
  if (!strict) return;
  const errors = (session?.errors ?? []).splice(0);
  const unexplained = errors.filter((e) => !sdkOwnProgressError(session, e) && !closeAbort(session, e) &&
    !resumeAfterDelete(session, e))
    .map((e) => String(e?.stack ?? e));
  assert.deepEqual(unexplained, [], `${what}: errors the SDK reported to onerror`);
  assert.deepEqual(warnings.splice(0), [], `${what}: warnings printed`);
}

/**
 * Closes the session's client, judging strictly what came before; the
 * AbortErrors the close itself causes (it aborts the client's own requests
 * and streams) are the client's doing and are dropped.
 */
export async function closeClient(session, what) {
  let verdict; // thrown once the client is closed, so that nothing is left running
  try {
    checkStrict(session, `${what}, before the client closes`);
  } catch (err) {
    verdict = err;
  }
  if (session) session.closed = true; // from here on, AbortErrors are the close's
  await session?.client.close();
  if (verdict) throw verdict;
}

/**
 * Whether err is the client's own close at work: an abort of its requests and
 * streams, or "Maximum reconnection attempts" from a stream's resumption
 * timer that outlived the close. The SDK (1.x) remembers only the latest
 * reconnection timer of the transport and clears just that one on close, so
 * when several POST streams end without their response (calls the client
 * cancelled: the server ends their streams with no answer), the other timers
 * still fire after the close; their attempts are aborted and each chain ends
 * with that error.
 */
const closeAbort = (session, err) => session?.closed &&
  /AbortError|operation was aborted|Maximum reconnection attempts/.test(String(err?.stack ?? err));

/**
 * Whether err is the SDK resuming, after the client itself ended the session
 * (DELETE answered 2xx), a POST stream that ended without its response: the
 * SDK (1.x) resumes such a stream (a call the client cancelled gets no
 * answer, so its stream ends without one) with GET and Last-Event-ID, and
 * the server rightly answers 404 for the ended session; each failed attempt
 * is reported, and the chain ends in "Maximum reconnection attempts". The
 * wire must show such a GET answered 404 after the DELETE.
 */
function resumeAfterDelete(session, err) {
  if (!/Failed to open SSE stream: Not Found|Maximum reconnection attempts/.test(String(err?.message ?? err))) return false;
  const del = session?.exchanges?.find((e) => e.method === 'DELETE' && e.status >= 200 && e.status < 300);
  if (!del) return false;
  return session.exchanges.some((e) => e.method === 'GET' && e.lastEventId && e.status === 404 && e.at > del.at);
}

/** ms after a cancellation during which the server may still send progress. */
export const GRACE = 100;

function sdkOwnProgressError(session, err) {
  const m = /progress notification for an unknown token: (\{.*\})$/.exec(String(err?.message ?? err));
  if (!m) return false;
  let n;
  try { n = JSON.parse(m[1]); } catch { return false; }
  const token = n.params?.progressToken;
  const at = session.wire.findIndex(({ msg }) => msg.method === 'notifications/progress' &&
    msg.params?.progressToken === token && msg.params?.progress === n.params?.progress);
  if (at < 0) return false;
  const response = session.wire.findIndex(({ msg }) => msg.id === token && !msg.method);
  if (response > at) return true;
  const cancel = session.sent.find(({ msg }) => msg.method === 'notifications/cancelled' && msg.params?.requestId === token);
  return cancel !== undefined && session.wire[at].at - cancel.at <= GRACE;
}

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
  return { command: notesBinary(), args: [] };
}

/**
 * The HTTP server's command line: INTEROP_HTTP_SERVER (a path, then optional
 * arguments; the server prints its endpoint's URL as its first stdout line),
 * or else examples/notes with --http 127.0.0.1:0.
 */
export function httpServerCommand() {
  const env = (process.env.INTEROP_HTTP_SERVER ?? '').trim();
  if (env) {
    const [command, ...args] = env.split(/\s+/);
    return { command: resolve(command), args };
  }
  return { command: notesBinary(), args: ['--http', '127.0.0.1:0'] };
}

/**
 * The feature tests' server (resources, prompts, completion, elicitation,
 * sampling): INTEROP_FEATURES_SERVER (a path, then optional arguments), or
 * else examples/conformance built from this repository; over stdio with
 * --stdio, over HTTP with --addr 127.0.0.1:0 (it prints its URL first).
 */
export function featuresServerCommand(overHTTP) {
  const env = (process.env.INTEROP_FEATURES_SERVER ?? '').trim();
  let command, args;
  if (env) {
    [command, ...args] = env.split(/\s+/);
    command = resolve(command);
  } else {
    command = exampleBinary('conformance', 'set INTEROP_FEATURES_SERVER to test another server');
    args = [];
  }
  return { command, args: [...args, ...(overHTTP ? ['--addr', '127.0.0.1:0'] : ['--stdio'])] };
}

/**
 * Three replicas on Redis behind a round-robin proxy: INTEROP_REPLICAS_SERVER
 * (a path, then optional arguments; it prints the proxy's URL first), or else
 * ext/redis's internal/replica built from this repository, run with
 * --cluster 3 (it starts redis-server on a free port, the three replica
 * processes and the proxy, and stops them on SIGTERM).
 */
export function replicasCommand() {
  const env = (process.env.INTEROP_REPLICAS_SERVER ?? '').trim();
  if (env) {
    const [command, ...args] = env.split(/\s+/);
    return { command: resolve(command), args };
  }
  if (!built.has('replica')) {
    const bin = join(mkdtempSync(join(tmpdir(), 'interop-replica-')), 'replica');
    const build = spawnSync('go', ['build', '-o', bin, './internal/replica'], { cwd: join(repoRoot, 'ext', 'redis'), encoding: 'utf8' });
    if (build.status !== 0) {
      throw new Error(`building ext/redis/internal/replica (or set INTEROP_REPLICAS_SERVER):\n${build.stderr}`);
    }
    built.set('replica', bin);
  }
  return { command: built.get('replica'), args: ['--cluster', '3', '--http', '127.0.0.1:0'] };
}

/**
 * The Tasks example's command line (ts/tasks.test.mjs): INTEROP_TASKS_SERVER
 * (a path, then optional arguments; it prints its endpoint's URL first), or
 * else examples/tasks over HTTP with batches of 50 ms.
 */
export function tasksServerCommand() {
  const env = (process.env.INTEROP_TASKS_SERVER ?? '').trim();
  if (env) {
    const [command, ...args] = env.split(/\s+/);
    return { command: resolve(command), args };
  }
  return { command: exampleBinary('tasks', 'or set INTEROP_TASKS_SERVER'), args: ['--http', '127.0.0.1:0', '--step', '50ms'] };
}

/**
 * rpcgen's own Go client for one task tool call (interop/cmd/taskcall):
 * INTEROP_TASKCALL, or else built from this checkout.
 */
export function taskcallBinary() {
  const env = (process.env.INTEROP_TASKCALL ?? '').trim();
  if (env) return resolve(env);
  if (!built.has('taskcall')) {
    const bin = join(mkdtempSync(join(tmpdir(), 'interop-taskcall-')), 'taskcall');
    const build = spawnSync('go', ['build', '-o', bin, './cmd/taskcall'], { cwd: join(repoRoot, 'interop'), encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`building interop/cmd/taskcall (or set INTEROP_TASKCALL):\n${build.stderr}`);
    built.set('taskcall', bin);
  }
  return built.get('taskcall');
}

const built = new Map(); // example name -> binary, built once per process
function notesBinary() {
  return exampleBinary('notes', 'set INTEROP_SERVER and INTEROP_HTTP_SERVER to test other servers');
}

/** Builds examples/name once; hint says how to do without it. */
function exampleBinary(name, hint) {
  if (built.has(name)) return built.get(name);
  const bin = join(mkdtempSync(join(tmpdir(), `interop-${name}-`)), name);
  const build = spawnSync('go', ['build', '-o', bin, `./examples/${name}`], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) {
    throw new Error(`building examples/${name} (${hint}):\n${build.stderr}`);
  }
  built.set(name, bin);
  return bin;
}

/**
 * Starts the server and connects the SDK's Client to it. The result holds the
 * client, the negotiated protocol version, every message the server wrote to
 * stdout after the handshake (parsed from the raw bytes, with arrival times),
 * every message the client sent, errors the SDK reported, and the server's
 * stderr. opts.capabilities are the client's capabilities; opts.setup(client)
 * runs before the handshake (to set request and notification handlers).
 */
export async function connect(cmd, opts = {}) {
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
  const client = new Client({ name: 'interop-ts-sdk', version: '1' }, { capabilities: opts.capabilities ?? {} });
  client.onerror = (err) => session.errors.push(err);
  opts.setup?.(client);
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

/**
 * Starts the HTTP server, reads its URL, and connects the SDK's Client over
 * kind, 'streamable-http' or 'sse'. The session is shaped as connect()'s,
 * with wire holding every JSON-RPC message read off any HTTP response body
 * (SSE events and JSON bodies, in arrival order), plus exchanges (each HTTP
 * request: method, url, session id sent, status, session id received),
 * endpoints (the HTTP+SSE endpoint events), the url, stop(), which ends
 * the server with SIGTERM, and child, its process. opts as for connect().
 */
export async function connectHTTP(cmd, kind, opts = {}) {
  const child = spawn(cmd.command, cmd.args, {
    cwd: mkdtempSync(join(tmpdir(), 'interop-cwd-')), // a fresh, empty store
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const session = { wire: [], sent: [], errors: [], stderr: '', protocolVersion: undefined, exchanges: [], endpoints: [] };
  child.stderr.on('data', (b) => { session.stderr += b; });
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  session.url = await new Promise((res, rej) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`no URL from the HTTP server within 20s; stderr:\n${session.stderr}`));
    }, 20_000);
    child.stdout.on('data', (b) => {
      out += b;
      const nl = out.indexOf('\n');
      if (nl >= 0) { clearTimeout(timer); res(out.slice(0, nl).trim()); }
    });
    child.once('exit', () => { clearTimeout(timer); rej(new Error(`the HTTP server exited; stderr:\n${session.stderr}`)); });
  });
  session.stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  session.child = child; // for tests that signal the server

  // The tap: every response body is teed; one branch goes to the SDK, the
  // other is parsed here as the bytes arrive.
  const tapFetch = async (url, init) => {
    const headers = new Headers(init?.headers);
    const ex = {
      method: init?.method ?? 'GET', url: String(url), at: performance.now(),
      session: headers.get('mcp-session-id'), version: headers.get('mcp-protocol-version'),
      lastEventId: headers.get('last-event-id'),
    };
    session.exchanges.push(ex);
    const res = await fetch(url, init);
    ex.status = res.status;
    ex.setSession = res.headers.get('mcp-session-id');
    ex.contentType = res.headers.get('content-type');
    if (!res.body) return res;
    const [mine, theirs] = res.body.tee();
    tap(mine, (ex.contentType ?? '').startsWith('text/event-stream'));
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const push = (text) => {
    const at = performance.now();
    let msg;
    try { msg = JSON.parse(text); } catch { return; }
    for (const m of Array.isArray(msg) ? msg : [msg]) session.wire.push({ at, line: JSON.stringify(m), msg: m });
  };
  const tap = async (stream, sse) => {
    const decoder = new TextDecoder();
    let buf = '';
    let data = [];
    let event = '';
    try {
      for await (const chunk of stream) {
        buf += decoder.decode(chunk, { stream: true });
        if (!sse) continue;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).replace(/\r$/, '');
          buf = buf.slice(nl + 1);
          if (line === '') {
            if (data.length && (event === '' || event === 'message')) push(data.join('\n'));
            if (data.length && event === 'endpoint') session.endpoints.push(data.join('\n'));
            data = [];
            event = '';
          } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          else if (line.startsWith('event:')) event = line.slice(6).trim();
        }
      }
    } catch { /* the client aborted the request */ }
    if (!sse && buf.trim()) push(buf);
  };

  const url = new URL(session.url);
  const transport = kind === 'sse'
    ? new SSEClientTransport(url, { fetch: tapFetch })
    : new StreamableHTTPClientTransport(url, { fetch: tapFetch });
  session.transport = transport;
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => { session.protocolVersion = v; setVersion?.(v); };
  const send = transport.send.bind(transport);
  transport.send = async (msg, opts) => {
    const at = performance.now();
    await send(msg, opts);
    session.sent.push({ at, msg });
  };
  const client = new Client({ name: 'interop-ts-sdk', version: '1' }, { capabilities: opts.capabilities ?? {} });
  client.onerror = (err) => session.errors.push(err);
  opts.setup?.(client);
  await client.connect(transport);
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
