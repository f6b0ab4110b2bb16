// Holds what docs/generating.md (Third-party generators) says about
// recursive types and @open-rpc/schema-utils-js's parseOpenRPCDocument, which
// @open-rpc/generator and the playground call first, for every document
// rpcgen generated here (documents.mjs):
//
//   - a document with a recursive component (one whose schema reaches itself
//     through "#/components/schemas/..." references) parses and validates
//     with { dereference: false }, and its broken copy does not;
//   - parsed with the default options (dereferencing), such a document runs
//     the parser out of heap (checked in a child process with a 32 MB heap);
//   - a document without recursion parses with the default options.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { parseOpenRPCDocument } from "@open-rpc/schema-utils-js";

import { exampleDocs, goldenDocs } from "./documents.mjs";

// recursiveComponents lists the components of doc whose schemas refer,
// directly or through other components, to themselves.
function recursiveComponents(doc) {
  const prefix = "#/components/schemas/";
  const refs = new Map();
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const out = new Set();
    const walk = (v) => {
      if (Array.isArray(v)) {
        v.forEach(walk);
      } else if (typeof v === "object" && v !== null) {
        if (typeof v.$ref === "string" && v.$ref.startsWith(prefix)) out.add(v.$ref.slice(prefix.length));
        Object.values(v).forEach(walk);
      }
    };
    walk(schema);
    refs.set(name, out);
  }
  return [...refs.keys()].filter((name) => {
    const seen = new Set();
    const todo = [...refs.get(name)];
    while (todo.length > 0) {
      const next = todo.pop();
      if (next === name) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      todo.push(...(refs.get(next) ?? []));
    }
    return false;
  });
}

const docs = [...exampleDocs(), ...goldenDocs()];
const recursive = docs.filter(({ doc }) => recursiveComponents(doc).length > 0);
const plain = docs.filter(({ doc }) => recursiveComponents(doc).length === 0);

test("there are documents with and without recursive components", () => {
  // The golden case openrpc_types has a recursive Category.
  assert.ok(
    recursive.some(({ name }) => name.startsWith("openrpc_types.txtar")),
    `recursive: ${recursive.map((d) => d.name)}`,
  );
  assert.ok(plain.length >= 5, `without recursion: ${plain.map((d) => d.name)}`);
  assert.deepEqual(recursiveComponents({ components: { schemas: { A: { $ref: "#/components/schemas/B" }, B: { items: { $ref: "#/components/schemas/A" } }, C: { $ref: "#/components/schemas/A" } } } }), ["A", "B"]);
});

for (const { name, doc } of recursive) {
  test(`${name} (recursive: ${recursiveComponents(doc)}) parses and validates with { dereference: false }`, async () => {
    const parsed = await parseOpenRPCDocument(structuredClone(doc), { dereference: false });
    assert.deepEqual(parsed, doc);
    const broken = structuredClone(doc);
    broken.methods[0].paramStructure = "by-guess";
    await assert.rejects(parseOpenRPCDocument(broken, { dereference: false }), (err) => {
      assert.match(err.message, /methods\[0\]\.paramStructure/);
      return true;
    });
  });
}

test("parsed with the default options, a recursive document runs parseOpenRPCDocument out of heap", () => {
  // One document is enough: the loop is schema-utils-js's, not the
  // document's (docs/generating.md).
  const { name, doc } = recursive[0];
  const child = spawnSync(process.execPath, ["--max-old-space-size=32", fileURLToPath(new URL("parse-stdin.mjs", import.meta.url))], {
    input: JSON.stringify(doc),
    encoding: "utf8",
  });
  assert.notEqual(child.status, 0, `${name} parsed: ${child.stdout}`);
  assert.doesNotMatch(child.stdout, /parsed/);
  assert.match(child.stderr, /heap out of memory|Reached heap limit/, child.stderr.slice(-2000));
});

for (const { name, doc } of plain) {
  test(`${name} (no recursion) parses with the default options`, async () => {
    await parseOpenRPCDocument(structuredClone(doc));
  });
}
