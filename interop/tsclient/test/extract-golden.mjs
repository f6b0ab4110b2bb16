// Writes the TypeScript outputs (want/*.ts) of the golden cases in
// testdata/golden to the directory given as the argument, one directory per
// case, and prints their paths, one a line.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const out = process.argv[2];
if (!out) {
  console.error("usage: node extract-golden.mjs DIR");
  process.exit(2);
}
const root = fileURLToPath(new URL("../../../testdata/golden/", import.meta.url));
for (const f of readdirSync(root).filter((f) => f.endsWith(".txtar")).sort()) {
  let name = null;
  let lines = [];
  const flush = () => {
    if (name !== null && name.startsWith("want/") && name.endsWith(".ts")) {
      const path = join(out, f.replace(/\.txtar$/, ""), name.slice("want/".length));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, lines.join("\n"));
      console.log(path);
    }
  };
  for (const line of readFileSync(join(root, f), "utf8").split("\n")) {
    const m = /^-- (.+) --$/.exec(line);
    if (m) {
      flush();
      name = m[1];
      lines = [];
    } else {
      lines.push(line);
    }
  }
  flush();
}
