// The two generated clients of shared_runtime.test.ts compiled as CommonJS
// (tsc --module commonjs, into CJS_BUILD): require loads each client and,
// through its require of "./rpcgen_runtime.js" or
// "../../examples/calculator/rpcgen_runtime.js", the one runtime, so the
// error classes are one class here too; the calculator answers through them.
const assert = require("node:assert/strict");
const path = require("node:path");
const { test } = require("node:test");

const build = process.env.CJS_BUILD;
const calcURL = process.env.CALCULATOR_URL;
if (build === undefined || calcURL === undefined) {
  throw new Error("CJS_BUILD or CALCULATOR_URL is not set; run this through interop/tsclient/run.sh");
}
const calc = require(path.join(build, "examples/calculator/calculator_client.js"));
const probe = require(path.join(build, "internal/probe/probe_client.js"));
const runtime = require(path.join(build, "examples/calculator/rpcgen_runtime.js"));

test("required as CommonJS, both clients export the one runtime's classes", () => {
  for (const name of ["RPCError", "TransportError", "CancelledError", "TimeoutError", "JSONRPCClient", "Batch"]) {
    assert.equal(typeof runtime[name], "function", name);
    assert.equal(calc[name], runtime[name], `calculator_client's ${name}`);
    assert.equal(probe[name], runtime[name], `probe_client's ${name}`);
  }
});

test("required as CommonJS, the calculator's declared error is the probe's RPCError", async () => {
  await assert.rejects(new calc.CalculatorClient(calcURL).divide(1, 0), (err) => {
    assert.ok(err instanceof calc.DivisionByZeroError, `got ${String(err)}`);
    assert.ok(err instanceof probe.RPCError);
    assert.equal(err.code, 1001);
    return true;
  });
  assert.equal(await new calc.CalculatorClient(calcURL).add(2, 3), 5);
});
