// Calls examples/tasks, a real server process serving MCP over Streamable
// HTTP (TASKS_URL), through the TypeScript client rpcgen generated for it:
// Archive.compact runs as a task (the Tasks extension), reports its progress,
// asks for a confirmation halfway and stops when cancelled. The client
// follows the task through its status notifications (subscriptions/listen)
// or, when the server's answer to that is refused, by polling tasks/get.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ArchiveCompactTool,
  ArchiveMCPClient,
  CancelledError,
  type MCPElicitParams,
  type MCPElicitResult,
  type Fetch,
  MCPClient,
  type Report,
  RPCError,
  MCPTaskCancelledError,
} from "../../../examples/tasks/archive_client.js";

const url = process.env.TASKS_URL;
if (url === undefined) {
  throw new Error("TASKS_URL is not set; run this through interop/tsclient/run.sh");
}

// A fetch that records the MCP method of each request, and answers
// subscriptions/listen itself with 404 when refuseListen is set (a server
// without status notifications: the client must poll).
function recordingFetch(methods: string[], refuseListen: boolean): Fetch {
  return async (u, init) => {
    const method = init.headers["Mcp-Method"] ?? "";
    methods.push(method);
    if (refuseListen && method === "subscriptions/listen") {
      const body = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32601, message: "Method not found" } });
      return { ok: false, status: 404, text: async () => body };
    }
    return fetch(u, init);
  };
}

const confirm = (answer: MCPElicitResult) => {
  const asked: MCPElicitParams[] = [];
  return { asked, onElicit: (p: MCPElicitParams): MCPElicitResult => (asked.push(p), answer) };
};

test("the blocking call follows the task, answers the confirmation and returns the typed result", async () => {
  const methods: string[] = [];
  const { asked, onElicit } = confirm({ action: "accept", content: { delete: true } });
  const archive = new ArchiveMCPClient(url, { onElicit, fetch: recordingFetch(methods, false) });
  const report: Report = await archive.compact(4);
  assert.deepEqual(report, { compacted: 4, deleted: true });
  assert.equal(asked.length, 1, "the confirmation is asked once");
  assert.match(asked[0]?.message ?? "", /^Compacted 2 of 4 batches\. Go on/);
  // Followed by its status notifications, answered with tasks/update.
  assert.deepEqual(methods.filter((m) => m !== "tasks/get"), ["tools/call", "subscriptions/listen", "tasks/update"]);
});

test("the handle shows the task's progress and input request; declining stops the compaction", async () => {
  let handle: Awaited<ReturnType<ArchiveMCPClient["startCompact"]>> | undefined;
  const mcp = new MCPClient(url, {
    onElicit: () => {
      // What the handle saw when the question came: the task waiting on it,
      // its progress at the batch before it.
      assert.equal(handle?.status, "input_required");
      assert.equal(handle?.task.statusMessage, "compacting batch 3 of 6");
      assert.deepEqual(Object.keys(handle?.task.inputRequests ?? {}), ["confirm"]);
      return { action: "decline" };
    },
  });
  handle = await new ArchiveMCPClient(mcp).startCompact(6);
  assert.match(handle.id, /^[0-9a-f]{32}$/);
  assert.equal(handle.status, "working");
  assert.equal(typeof handle.task.pollIntervalMs, "number");
  assert.deepEqual(await handle.result(), { compacted: 3, deleted: false });
  assert.equal(handle.status, "completed");
});

test("polling: without status notifications the client polls tasks/get", async () => {
  const methods: string[] = [];
  const { asked, onElicit } = confirm({ action: "accept", content: { delete: true } });
  const archive = new ArchiveMCPClient(url, { onElicit, fetch: recordingFetch(methods, true) });
  assert.deepEqual(await archive.compact(2), { compacted: 2, deleted: true });
  assert.equal(asked.length, 1);
  assert.equal(methods[0], "tools/call");
  assert.equal(methods[1], "subscriptions/listen");
  assert.ok(methods.filter((m) => m === "tasks/get").length >= 2, `requests: ${methods.join(", ")}`);
  assert.equal(methods.filter((m) => m === "subscriptions/listen").length, 1);
});

test("cancel: the task ends cancelled and result throws MCPTaskCancelledError", async () => {
  const archive = new ArchiveMCPClient(url, { onElicit: () => ({ action: "cancel" }) });
  const handle = await archive.startCompact(10000);
  await handle.cancel();
  assert.equal(handle.status, "cancelled");
  const err = await handle.result().catch((e: unknown) => e);
  assert.ok(err instanceof MCPTaskCancelledError, `got ${String(err)}`);
  assert.equal(err.taskId, handle.id);
});

test("an aborted signal cancels the task on the server", async () => {
  const mcp = new MCPClient(url, { onElicit: () => ({ action: "cancel" }) });
  const handle = await new ArchiveMCPClient(mcp).startCompact(10000);
  const controller = new AbortController();
  const following = handle.result({ signal: controller.signal });
  controller.abort(new Error("the user gave up"));
  const err = await following.catch((e: unknown) => e);
  assert.ok(err instanceof CancelledError, `got ${String(err)}`);
  assert.ok(!(err instanceof MCPTaskCancelledError));
  // Another client sees the task cancelled.
  const seen = await new MCPClient(url).task(ArchiveCompactTool, handle.id);
  assert.equal(seen.status, "cancelled");
});

test("a task is picked up by its ID from a new client, which gets its result", async () => {
  // The task asks what its creator's capabilities allow: elicitation, which
  // the client that picks it up answers.
  const first = new MCPClient(url, { capabilities: { elicitation: { form: {} } } });
  const handle = await new ArchiveMCPClient(first).startCompact(4);
  const id = handle.id;
  await first.close();
  const { asked, onElicit } = confirm({ action: "accept", content: { delete: true } });
  const again = await new MCPClient(url, { onElicit }).task(ArchiveCompactTool, id);
  assert.equal(again.id, id);
  assert.deepEqual(await again.result(), { compacted: 4, deleted: true });
  assert.equal(asked.length, 1);
});

test("an input request no handler answers fails the call, and the task is cancelled", async () => {
  // Elicitation declared, so the task asks; but no onElicit answers it.
  const mcp = new MCPClient(url, { capabilities: { elicitation: { form: {} } } });
  const handle = await new ArchiveMCPClient(mcp).startCompact(2);
  const err = await handle.result().catch((e: unknown) => e);
  assert.ok(err instanceof RPCError, `got ${String(err)}`);
  assert.equal(err.code, -32601);
  assert.match(err.message, /elicitation\/create/);
  const seen = await new MCPClient(url).task(ArchiveCompactTool, handle.id);
  assert.equal(seen.status, "cancelled");
});

test("the tool's error is thrown as the RPCError it returned", async () => {
  const err = await new ArchiveMCPClient(url).compact(0).catch((e: unknown) => e);
  assert.ok(err instanceof RPCError, `got ${String(err)}`);
  assert.equal(err.code, -32602);
  assert.match(err.message, /batches must be 1 to 10000/);
});

test("an unknown task ID is an RPCError", async () => {
  const err = await new MCPClient(url).task(ArchiveCompactTool, "0".repeat(32)).catch((e: unknown) => e);
  assert.ok(err instanceof RPCError, `got ${String(err)}`);
  assert.equal(err.code, -32602);
});
