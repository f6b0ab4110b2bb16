// Validates the OpenRPC documents rpcgen generated, those of the examples
// and those of the golden cases, against the official OpenRPC meta-schema
// with the official tools, and checks that every "$ref" in them resolves.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { validateOpenRPCDocument } from "@open-rpc/schema-utils-js";

import { exampleDocs, goldenDocs, repo } from "./documents.mjs";

// unresolvedRefs lists the "$ref"s of doc that do not point at a member of
// doc. (schema-utils-js's dereferencer would check this too, but it never
// returns on a recursive schema.)
function unresolvedRefs(doc) {
  const bad = [];
  const walk = (v) => {
    if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (typeof v === "object" && v !== null) {
      if (typeof v.$ref === "string" && resolve(doc, v.$ref) === undefined) {
        bad.push(v.$ref);
      }
      Object.values(v).forEach(walk);
    }
  };
  walk(doc);
  return bad;
}

// resolve follows a "#/a/b" JSON pointer in doc.
function resolve(doc, ref) {
  if (!ref.startsWith("#/")) return undefined;
  let v = doc;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

const examples = exampleDocs();
const golden = goldenDocs();

test("there are documents to check", () => {
  assert.ok(existsSync(join(repo, "examples", "calculator", "calculator.openrpc.json")));
  assert.ok(examples.length >= 2, `examples: ${examples.map((d) => d.name)}`);
  assert.ok(golden.length >= 3, `golden: ${golden.map((d) => d.name)}`);
});

for (const { name, doc } of [...examples, ...golden]) {
  test(`${name} is valid OpenRPC and its references resolve`, async () => {
    const result = validateOpenRPCDocument(doc);
    assert.equal(result, true, result === true ? "" : String(result));
    assert.deepEqual(unresolvedRefs(doc), []);
  });
}

// The validator must be able to fail for the checks above to mean anything.
test("the checks reject broken documents", () => {
  const doc = examples.find((d) => d.name.endsWith("calculator.openrpc.json")).doc;
  const noInfo = structuredClone(doc);
  delete noInfo.info;
  assert.notEqual(validateOpenRPCDocument(noInfo), true);

  const badStructure = structuredClone(doc);
  badStructure.methods[0].paramStructure = "by-guess";
  assert.notEqual(validateOpenRPCDocument(badStructure), true);

  const badRef = structuredClone(doc);
  badRef.methods[0].params[0].schema = { $ref: "#/components/schemas/Missing" };
  assert.deepEqual(unresolvedRefs(badRef), ["#/components/schemas/Missing"]);
});
