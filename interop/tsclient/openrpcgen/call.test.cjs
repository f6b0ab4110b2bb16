// Calls internal/probe (PROBE_URL) through the TypeScript client that
// @open-rpc/generator wrote for its committed OpenRPC document, whose
// methods have bare names, as compiled by run.sh (OPENRPCGEN_CLIENT is the
// compiled module).
"use strict";
const assert = require("node:assert/strict");
const { test } = require("node:test");

const { PROBE_URL: url, OPENRPCGEN_CLIENT: client } = process.env;
if (!url || !client) {
  throw new Error("PROBE_URL or OPENRPCGEN_CLIENT is not set; run this through interop/tsclient/run.sh");
}
const { Probe } = require(client);
const { hostname, port } = new URL(url);
const probe = new Probe({ transport: { type: "http", host: hostname, port: Number(port) } });

test("@open-rpc/generator's client: params by position, results", async () => {
  assert.equal(await probe.echo("hello from @open-rpc/generator"), "hello from @open-rpc/generator");
  assert.equal(await probe.add(2, 3), 5);
  assert.equal(await probe.header("Content-Type"), "application/json");
});

test("@open-rpc/generator's client checks params against the document's schemas and ranges", async () => {
  await assert.rejects(probe.add("two", 3));
  // Beyond the int64 range the document states: refused before it is sent.
  await assert.rejects(probe.add(2 ** 64, 1), (errs) => {
    assert.ok(Array.isArray(errs) && errs.length === 1, `got ${JSON.stringify(errs)}`);
    assert.match(errs[0].message, /maximum/);
    return true;
  });
  // 2^63 is one past int64's maximum, which JavaScript reads as 2^63 too:
  // the validator lets it through, and the server refuses it.
  await assert.rejects(probe.add(2 ** 63, 1), (err) => {
    assert.equal(err.code, -32602, `got ${JSON.stringify(err)}`);
    assert.match(err.message, /expected an integer between -9223372036854775808 and 9223372036854775807/);
    return true;
  });
});

// Not tested: increment, whose params are one struct's members, sent by name
// ("paramStructure": "by-name"). The generated client validates the array of
// positional arguments it was called with as if it were the by-name object,
// finds no member "value" and refuses the call before sending it: a bug of
// @open-rpc/generator's client (docs/generating.md, Third-party generators).
