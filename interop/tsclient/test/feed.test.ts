// Calls examples/feed's gateway (FEED_URL), which relays the quotes service
// over a Unix socket, through the TypeScript client rpcgen generated for it:
// over WebSocket (WebSocketTransport) and over HTTP, an idempotent call and a
// stream read with for await, past its window of credits, broken off
// mid-way, and read to its end.
import assert from "node:assert/strict";
import { test } from "node:test";

import { type Quote, QuotesClient, RPCError, WebSocketTransport } from "../../../examples/feed/web/quotes_client.js";

const base = process.env.FEED_URL;
if (base === undefined) {
  throw new Error("FEED_URL is not set; run this through interop/tsclient/run.sh");
}
const wsURL = base.replace(/^http/, "ws") + "/ws";

async function take(it: AsyncIterable<Quote>, n: number): Promise<Quote[]> {
  const got: Quote[] = [];
  for await (const q of it) {
    got.push(q);
    if (got.length === n) break;
  }
  return got;
}

test("over WebSocket: a call, a stream past its window broken off mid-way, then one read to its end", async () => {
  const transport = new WebSocketTransport(wsURL);
  const quotes = new QuotesClient(transport);
  try {
    const q = await quotes.price("ACME");
    assert.equal(q.symbol, "ACME");
    assert.equal(q.price, 100);
    const got = await take(quotes.watch("ACME", 0), 300);
    assert.equal(got.length, 300);
    got.forEach((q, i) => assert.equal(q.seq, i + 1));
    const all: number[] = [];
    for await (const q of quotes.watch("XYZ", 3)) all.push(q.seq);
    assert.deepEqual(all, [1, 2, 3]);
  } finally {
    await transport.close();
  }
});

test("over WebSocket: a stream's error response is thrown as an RPCError", async () => {
  const transport = new WebSocketTransport(wsURL);
  const client = new QuotesClient(transport);
  try {
    await assert.rejects(
      (async () => {
        for await (const _ of client.watch("ACME", -1 as number)) {
          void _;
        }
      })(),
      (err: unknown) => err instanceof RPCError,
    );
  } finally {
    await transport.close();
  }
});

test("over HTTP: a stream as Server-Sent Events, read to its end and broken off", async () => {
  const quotes = new QuotesClient(base + "/rpc");
  const all: number[] = [];
  for await (const q of quotes.watch("XYZ", 3)) all.push(q.seq);
  assert.deepEqual(all, [1, 2, 3]);
  const got = await take(quotes.watch("ACME", 0), 5);
  assert.deepEqual(got.map((q) => q.seq), [1, 2, 3, 4, 5]);
});
