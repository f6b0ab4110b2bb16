// The OpenRPC documents rpcgen generated that interop/tsclient checks: the
// committed ones (examples/*/*.openrpc.json, internal/*/*.openrpc.json) and
// those of the golden cases (testdata/golden/*.txtar).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = fileURLToPath(new URL("../../../", import.meta.url));

// The committed documents: examples/*/*.openrpc.json and
// internal/*/*.openrpc.json.
export function exampleDocs() {
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
export function goldenDocs() {
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
