// Reads an OpenRPC document on stdin and parses it with
// @open-rpc/schema-utils-js's parseOpenRPCDocument and its default options
// (dereferencing every "$ref"), as @open-rpc/generator and the playground
// do; prints "parsed" once it returns. recursion.test.mjs runs it in a
// child process with a small heap.
import { parseOpenRPCDocument } from "@open-rpc/schema-utils-js";
import { text } from "node:stream/consumers";

await parseOpenRPCDocument(JSON.parse(await text(process.stdin)));
console.log("parsed");
