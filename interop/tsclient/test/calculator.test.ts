// Calls examples/calculator, served over HTTP (CALCULATOR_URL), through the
// TypeScript client rpcgen generated for it: every method, a notification,
// an implementation's error and a validation error as RPCErrors, and
// rpc.discover against the committed OpenRPC document.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import {
  CalculatorClient,
  type DivisionByZero,
  DivisionByZeroError,
  ErrorCode,
  JSONRPCClient,
  RPCError,
  type Stats,
} from "../../../examples/calculator/calculator_client.js";

const url = process.env.CALCULATOR_URL;
if (url === undefined) {
  throw new Error("CALCULATOR_URL is not set; run this through interop/tsclient/run.sh");
}
const calc = new CalculatorClient(url);

// CodeDivisionByZero in examples/calculator/calculator.go.
const codeDivisionByZero = 1001;

test("add returns the sum", async () => {
  assert.equal(await calc.add(2, 3), 5);
  assert.equal(await calc.add(-7, 7), 0);
});

test("divide returns the quotient", async () => {
  assert.equal(await calc.divide(10, 4), 2.5);
});

test("divide by zero throws the declared error's class, an RPCError with typed data", async () => {
  const err = await calc.divide(1, 0).then(
    () => assert.fail("divide(1, 0) resolved"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof DivisionByZeroError, `got ${String(err)}`);
  assert.ok(err instanceof RPCError);
  assert.equal(err.name, "DivisionByZeroError");
  assert.equal(err.code, codeDivisionByZero);
  assert.equal(DivisionByZeroError.code, codeDivisionByZero);
  assert.equal(err.message, "division by zero");
  const data: DivisionByZero = err.data; // typed: no cast
  assert.deepEqual(data, { dividend: 1 });
  // Called by name, without the method's error classes, it is a plain RPCError.
  const other = await new JSONRPCClient(url).call("calculator.divide", { a: 1, b: 0 }).catch((e: unknown) => e);
  assert.ok(other instanceof RPCError && !(other instanceof DivisionByZeroError));
});

test("stats takes its params object whole and returns a typed result", async () => {
  const s: Stats = await calc.stats({ numbers: [3, 1, 4, 1, 5, 9, 2, 6], round: 2 });
  assert.deepEqual(s, { count: 8, sum: 31, mean: 3.88, min: 1, max: 9 });
  const unrounded = await calc.stats({ numbers: [1, 2] });
  assert.equal(unrounded.mean, 1.5);
});

test("stats with no numbers: the implementation's invalid params error", async () => {
  await assert.rejects(calc.stats({ numbers: [] }), (err: unknown) => {
    assert.ok(err instanceof RPCError);
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /numbers/);
    return true;
  });
});

test("remember is a notification; recall then returns the value", async () => {
  assert.equal(await calc.remember(42), undefined);
  // Nothing answers a notification, so wait until the server has handled it.
  const deadline = Date.now() + 5000;
  let v = await calc.recall();
  while (v !== 42 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    v = await calc.recall();
  }
  assert.equal(v, 42);
});

test("params that fail validation are an RPCError naming the member", async () => {
  const rpc = new JSONRPCClient(url);
  await assert.rejects(rpc.call("calculator.add", { a: 1 }), (err: unknown) => {
    assert.ok(err instanceof RPCError);
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /"b"/);
    return true;
  });
  await assert.rejects(rpc.call("calculator.add", { a: 1, b: "two" }), (err: unknown) => {
    assert.ok(err instanceof RPCError);
    assert.equal(err.code, ErrorCode.InvalidParams);
    return true;
  });
});

test("an integer outside the int64 range the document states is refused with a message", async () => {
  // 2 ** 64 is an integer to JavaScript, and JSON.stringify writes all its
  // digits; the server's decoder refuses it before Add runs.
  await assert.rejects(calc.add(2 ** 64, 1), (err: unknown) => {
    assert.ok(err instanceof RPCError, `got ${String(err)}`);
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /"a": expected an integer between -9223372036854775808 and 9223372036854775807/);
    return true;
  });
  // Within 2^53 a number is exact both ways.
  assert.equal(await calc.add(2 ** 53 - 1, -1), 2 ** 53 - 2);
});

test("an unknown method is an RPCError with code MethodNotFound", async () => {
  const rpc = new JSONRPCClient(url);
  await assert.rejects(rpc.call("calculator.nope"), (err: unknown) => {
    assert.ok(err instanceof RPCError);
    assert.equal(err.code, ErrorCode.MethodNotFound);
    return true;
  });
});

test("rpc.discover answers the committed OpenRPC document", async () => {
  const file = process.env.CALCULATOR_OPENRPC;
  assert.ok(file, "CALCULATOR_OPENRPC is not set");
  const want: unknown = JSON.parse(await readFile(file, "utf8"));
  const got = await new JSONRPCClient(url).call<unknown>("rpc.discover");
  assert.deepEqual(got, want);
});
