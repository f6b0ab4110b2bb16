// Every OpenRPC document generated here that states version 1.2.6
// (--openrpc-version 1.2.6: internal/probe's, golden case openrpc_legacy's)
// is valid against the meta-schema @open-rpc/generator's TypeScript client
// pins (@open-rpc/meta-schema 1.14.2, through @open-rpc/schema-utils-js
// 1.15.0, both from the package.json it writes), as docs/generating.md says;
// and the same document stating 1.3.2 is not, so the check is live.
"use strict";
const assert = require("node:assert/strict");
const { test } = require("node:test");
const { validateOpenRPCDocument } = require("@open-rpc/schema-utils-js");

test("the documents that state OpenRPC 1.2.6 are valid against the meta-schema of 1.2.6", async () => {
  const { exampleDocs, goldenDocs } = await import("../test/documents.mjs");
  const legacy = [...exampleDocs(), ...goldenDocs()].filter(({ doc }) => doc.openrpc === "1.2.6");
  const names = legacy.map(({ name }) => name);
  assert.ok(names.includes("internal/probe/probe.openrpc.json"), `1.2.6 documents: ${names}`);
  assert.ok(names.some((n) => n.startsWith("openrpc_legacy.txtar")), `1.2.6 documents: ${names}`);
  for (const { name, doc } of legacy) {
    const result = validateOpenRPCDocument(doc);
    assert.equal(result, true, `${name}: ${result === true ? "" : result.message}`);
    assert.notEqual(validateOpenRPCDocument({ ...doc, openrpc: "1.3.2" }), true, `${name} stating 1.3.2`);
  }
});
