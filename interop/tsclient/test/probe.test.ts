// Calls internal/probe, served over HTTP (PROBE_URL), through the TypeScript
// client rpcgen generated for it, and checks the client's per-call options
// against what the server saw: a call aborted mid-flight or timed out
// rejects with a CancelledError and its handler's context is cancelled on
// the server; headers arrive per call; a batch is one HTTP request whose
// calls settle one by one; a network failure is a TransportError.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";

import {
  Batch,
  CancelledError,
  ErrorCode,
  type Fetch,
  JSONRPCClient,
  ProbeClient,
  RPCError,
  TimeoutError,
  type Transport,
  TransportError,
} from "../../../internal/probe/probe_client.js";

const url = process.env.PROBE_URL;
if (url === undefined) {
  throw new Error("PROBE_URL is not set; run this through interop/tsclient/run.sh");
}
const probe = new ProbeClient(url);

// rejection awaits p and returns what it rejected with.
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => assert.fail(`resolved with ${JSON.stringify(v)}`),
    (err: unknown) => err,
  );
}

test("a call aborted mid-flight rejects with a CancelledError, and the server cancels its handler's context", async () => {
  const ac = new AbortController();
  const call = probe.hold("abort", { signal: ac.signal });
  await probe.held("abort"); // the handler is running on the server
  ac.abort("the user gave up");
  const err = await rejection(call);
  assert.ok(err instanceof CancelledError, `got ${String(err)}`);
  assert.ok(!(err instanceof TimeoutError));
  assert.equal(err.reason, "the user gave up");
  assert.equal(await probe.released("abort"), "context canceled");
});

test("a call past its timeout rejects with a TimeoutError, and the server cancels its handler's context", async () => {
  const call = probe.hold("timeout", { timeout: 1500 });
  await probe.held("timeout");
  const err = await rejection(call);
  assert.ok(err instanceof TimeoutError, `got ${String(err)}`);
  assert.ok(err instanceof CancelledError);
  assert.equal(err.timeout, 1500);
  assert.equal(await probe.released("timeout"), "context canceled");
});

test("the client's timeout applies to every call that sets none", async () => {
  const impatient = new ProbeClient(url, { timeout: 1500 });
  const call = impatient.hold("client-timeout");
  await probe.held("client-timeout");
  assert.ok((await rejection(call)) instanceof TimeoutError);
  assert.equal(await probe.released("client-timeout"), "context canceled");
  assert.equal(await impatient.echo("quick"), "quick");
});

test("a signal aborted before the call rejects at once, sending nothing", async () => {
  let sent = 0;
  const counting: Fetch = (u, init) => {
    sent++;
    return globalThis.fetch(u, init);
  };
  const ac = new AbortController();
  ac.abort();
  const err = await rejection(new ProbeClient(url, { fetch: counting }).echo("never", { signal: ac.signal }));
  assert.ok(err instanceof CancelledError);
  assert.equal(sent, 0);
});

test("headers go with the client and with each call", async () => {
  const client = new ProbeClient(url, { headers: { "X-Client": "c1", "X-Both": "client" } });
  assert.equal(await client.header("X-Client"), "c1");
  assert.equal(await client.header("X-Call", { headers: { "X-Call": "yes" } }), "yes");
  assert.equal(await client.header("X-Both", { headers: { "X-Both": "call" } }), "call");
  assert.equal(await client.header("X-Call"), "");
});

test("a batch is one HTTP request, and each call settles with its own answer", async () => {
  let posts = 0;
  const counting: Fetch = (u, init) => {
    posts++;
    return globalThis.fetch(u, init);
  };
  const rpc = new JSONRPCClient(url, { fetch: counting });
  const client = new ProbeClient(rpc);
  const batch = new Batch();
  const sum = client.add(2, 3, { batch });
  const echo = client.echo("in a batch", { batch });
  const unknown = rpc.call("no_such_method", undefined, { batch });
  const invalid = rpc.call("add", { a: 1 }, { batch });
  assert.equal(batch.size, 4);
  assert.equal(posts, 0);
  await batch.send();
  assert.equal(posts, 1);
  assert.equal(await sum, 5);
  assert.equal(await echo, "in a batch");
  const e1 = await rejection(unknown);
  assert.ok(e1 instanceof RPCError && e1.code === ErrorCode.MethodNotFound, `got ${String(e1)}`);
  const e2 = await rejection(invalid);
  assert.ok(e2 instanceof RPCError && e2.code === ErrorCode.InvalidParams, `got ${String(e2)}`);
  await assert.rejects(batch.send(), /already sent/);
});

test("a refused connection is a TransportError carrying the cause", async () => {
  // A port that was just free: nothing listens on it.
  const port = await new Promise<number>((resolve) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr !== null ? addr.port : 0));
    });
  });
  const err = await rejection(new ProbeClient(`http://127.0.0.1:${port}`).echo("anyone?"));
  assert.ok(err instanceof TransportError, `got ${String(err)}`);
  assert.equal(err.status, undefined);
  assert.ok(err.cause !== undefined);
});

test("an HTTP error without a JSON-RPC body is a TransportError with its status", async () => {
  const unavailable: Fetch = async () => ({ ok: false, status: 503, text: async () => "" });
  const err = await rejection(new ProbeClient(url, { fetch: unavailable }).echo("x"));
  assert.ok(err instanceof TransportError, `got ${String(err)}`);
  assert.equal(err.status, 503);
  const html: Fetch = async () => ({ ok: false, status: 502, text: async () => "<html>Bad gateway</html>" });
  const err2 = await rejection(new ProbeClient(url, { fetch: html }).echo("x"));
  assert.ok(err2 instanceof TransportError && err2.status === 502, `got ${String(err2)}`);
});

test("a Transport of one's own carries the calls", async () => {
  const seen: string[] = [];
  const http = new JSONRPCClient(url).transport;
  const mine: Transport = {
    exchange(message, options) {
      seen.push(Array.isArray(message) ? "batch" : message.method);
      return http.exchange(message, options);
    },
  };
  const client = new ProbeClient(mine);
  assert.equal(await client.echo("through mine"), "through mine");
  assert.deepEqual(seen, ["echo"]);
});

test("an int64 with a ,string tag travels as a string and keeps every digit beyond 2^53", async () => {
  const n = 2n ** 53n + 1n; // not a JavaScript number
  const got = await probe.increment({ value: n.toString() });
  assert.equal(typeof got.value, "string");
  assert.equal(BigInt(got.value), n + 1n);
  await assert.rejects(probe.increment({ value: "9223372036854775808" }), (err: unknown) => {
    assert.ok(err instanceof RPCError && err.code === ErrorCode.InvalidParams, `got ${String(err)}`);
    return true;
  });
});
