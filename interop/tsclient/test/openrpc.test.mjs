// Validates the OpenRPC documents rpcgen generated, those of the examples
// and those of the golden cases, against the official OpenRPC meta-schema
// with the official tools, and checks that every "$ref" in them resolves.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { validateOpenRPCDocument } from "@open-rpc/schema-utils-js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));

// The committed documents: examples/*/*.openrpc.json and
// internal/*/*.openrpc.json.
function exampleDocs() {
  const docs = [];
  for (const top of ["examples", "internal"]) {
    const root = join(repo, top);
    for (const dir of readdirSync(root, { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      for (const f of readdirSync(join(root, dir.name))) {
        if (f.endsWith(".openrpc.json")) {
          const path = join(top, dir.name, f);
          docs.push({ name: path, doc: JSON.parse(readFileSync(join(repo, path), "utf8")) });
        }
      }
    }
  }
  return docs;
}

// The golden cases' documents: every want/ file of a testdata/golden/*.txtar
// that is a JSON object with an "openrpc" member.
function goldenDocs() {
  const docs = [];
  const root = join(repo, "testdata", "golden");
  for (const f of readdirSync(root).filter((f) => f.endsWith(".txtar")).sort()) {
    for (const [name, data] of txtarFiles(readFileSync(join(root, f), "utf8"))) {
      if (!name.startsWith("want/") || !name.endsWith(".json")) continue;
      const doc = JSON.parse(data);
      if (typeof doc === "object" && doc !== null && "openrpc" in doc) {
        docs.push({ name: `${f}: ${name}`, doc });
      }
    }
  }
  return docs;
}

// txtarFiles splits a txtar archive into [name, data] pairs.
function txtarFiles(text) {
  const files = [];
  let cur = null;
  for (const line of text.split("\n")) {
    const m = /^-- (.+) --$/.exec(line);
    if (m) {
      cur = [m[1], []];
      files.push(cur);
    } else if (cur) {
      cur[1].push(line);
    }
  }
  return files.map(([name, lines]) => [name, lines.join("\n")]);
}

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
