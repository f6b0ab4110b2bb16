// Drives examples/conformance (its resources, prompts, completions, and the
// tools that ask the client for input) with the official TypeScript SDK
// client (@modelcontextprotocol/sdk), over stdio and over Streamable HTTP.
// The SDK speaks 2025-11-25: the server asks its questions as
// elicitation/create and sampling/createMessage requests, which the handlers
// set here answer, and a subscription is resources/subscribe.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import {
  CreateMessageRequestSchema, ElicitRequestSchema, McpError, ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { checkStrict, closeClient, connect, connectHTTP, featuresServerCommand, note, textOf } from './harness.mjs';

/** JSON for failure messages, cut short. */
const brief = (v) => { const j = JSON.stringify(v); return j.length > 200 ? `${j.slice(0, 190)}...(${j.length} chars)` : j; };

const STATIC_TEXT = 'test://static-text';
const STATIC_BINARY = 'test://static-binary';
const WATCHED = 'test://watched-resource';
const TEMPLATE = 'test://template/{id}/data';
const WITH_ARGS = 'test_prompt_with_arguments';
const PROMPTS = ['test_simple_prompt', WITH_ARGS, 'test_prompt_with_embedded_resource', 'test_prompt_with_image', 'test_input_required_result_prompt'];
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

for (const kind of ['stdio', 'streamable-http']) describe(`TypeScript SDK client, resources, prompts and input requests, over ${kind}`, () => {
  let s; // the session from connect() or connectHTTP()
  const asked = { elicit: [], sample: [] };
  const updates = [];
  let onUpdate = () => {};

  const opts = {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    setup(client) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.elicit.push(req.params);
        if (req.params.message.includes('decline')) return { action: 'decline' };
        return { action: 'accept', content: { username: 'ts-user', email: 'ts@example.com' } };
      });
      client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
        asked.sample.push(req.params);
        const first = req.params.messages[0]?.content;
        return { role: 'assistant', content: { type: 'text', text: `sampled: ${first?.text}` }, model: 'interop-model', stopReason: 'endTurn' };
      });
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.push(n.params.uri);
        onUpdate();
      });
    },
  };

  before(async () => {
    s = kind === 'stdio'
      ? await connect(featuresServerCommand(false), opts)
      : await connectHTTP(featuresServerCommand(true), kind, opts);
  });
  after(async () => {
    let failure; // judged once the client and the server are stopped
    try {
      await closeClient(s, kind);
    } catch (err) {
      failure = err;
    }
    const exit = await s?.stop?.();
    if (s?.stderr) note(`server stderr (${kind}):\n${s.stderr}`);
    if (failure) throw failure;
    if (exit) assert.deepEqual(exit, { code: 0, signal: null }, 'the HTTP server exits cleanly on SIGTERM');
    checkStrict(s, `${kind}, after the client closed`);
  });

  /** Requests of method the server sent the client, as read off the wire. */
  const serverRequests = (method) => s.wire.filter(({ msg }) => msg.method === method && msg.id !== undefined);

  test('initialize: the capabilities', () => {
    assert.equal(s.protocolVersion, '2025-11-25');
    const caps = s.client.getServerCapabilities();
    assert.equal(caps?.resources?.subscribe, true, `resources.subscribe in ${brief(caps)}`);
    assert.ok(caps?.prompts, `prompts in ${brief(caps)}`);
    assert.ok(caps?.completions, `completions in ${brief(caps)}`);
  });

  test('resources/list and resources/templates/list', async () => {
    const { resources } = await s.client.listResources();
    // The fixture's resources, then the files of its skill (ts/skills.test.mjs).
    assert.deepEqual(resources.map((r) => r.uri), [STATIC_TEXT, STATIC_BINARY, WATCHED,
      'skill://mcp-conformance/SKILL.md', 'skill://mcp-conformance/references/TOOLS.md']);
    for (const r of resources) assert.ok(r.name && r.description && r.mimeType, `resource ${brief(r)}`);
    const text = resources.find((r) => r.uri === STATIC_TEXT);
    assert.deepEqual([text.name, text.title, text.mimeType], ['static_text', 'Static text', 'text/plain']);
    const { resourceTemplates } = await s.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), [TEMPLATE]);
    assert.equal(resourceTemplates[0].mimeType, 'application/json');
  });

  test('resources/read: text, binary, from the template, unknown', async () => {
    const text = await s.client.readResource({ uri: STATIC_TEXT });
    assert.equal(text.contents.length, 1);
    assert.equal(text.contents[0].uri, STATIC_TEXT);
    assert.equal(text.contents[0].mimeType, 'text/plain');
    assert.ok(text.contents[0].text.length > 0);

    const bin = await s.client.readResource({ uri: STATIC_BINARY });
    assert.equal(bin.contents[0].mimeType, 'image/png');
    assert.ok(Buffer.from(bin.contents[0].blob, 'base64').subarray(0, 8).equals(PNG_MAGIC), 'a PNG');

    for (const id of ['123', 'a b/c']) {
      const uri = `test://template/${encodeURIComponent(id)}/data`;
      const rec = await s.client.readResource({ uri });
      assert.equal(rec.contents[0].uri, uri);
      assert.equal(rec.contents[0].mimeType, 'application/json');
      assert.equal(JSON.parse(rec.contents[0].text).id, id, `the record read from ${uri}`);
    }

    await assert.rejects(s.client.readResource({ uri: 'test://no-such-resource' }),
      (err) => err instanceof McpError && err.code === -32002, 'an unknown resource is error -32002');
  });

  test('prompts/list and prompts/get', async () => {
    const { prompts } = await s.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), PROMPTS);
    for (const p of prompts) assert.ok(p.description, `${p.name}: a description`);
    const withArgs = prompts.find((p) => p.name === WITH_ARGS);
    assert.deepEqual(withArgs.arguments.map((a) => [a.name, a.required]), [['arg1', true], ['arg2', true]]);

    const got = await s.client.getPrompt({ name: WITH_ARGS, arguments: { arg1: 'first-value', arg2: 'second-value' } });
    const all = JSON.stringify(got.messages);
    assert.ok(all.includes('first-value') && all.includes('second-value'), `both arguments in ${all}`);

    const embedded = await s.client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } });
    assert.ok(embedded.messages.some((m) => m.content.type === 'resource' && m.content.resource.uri === 'test://example-resource'),
      brief(embedded.messages));
    const image = await s.client.getPrompt({ name: 'test_prompt_with_image' });
    assert.ok(image.messages.some((m) => m.content.type === 'image' && m.content.mimeType === 'image/png' && m.content.data),
      brief(image.messages));

    await assert.rejects(s.client.getPrompt({ name: WITH_ARGS, arguments: { arg1: 'x' } }),
      (err) => err instanceof McpError && err.code === -32602, 'a missing required argument is error -32602');
  });

  test('completion/complete: a prompt argument and a template variable', async () => {
    const arg1 = await s.client.complete({ ref: { type: 'ref/prompt', name: WITH_ARGS }, argument: { name: 'arg1', value: 'te' } });
    assert.deepEqual(arg1.completion.values, ['test', 'testValue1', 'testing']);
    const none = await s.client.complete({ ref: { type: 'ref/prompt', name: WITH_ARGS }, argument: { name: 'arg1', value: 'zzz' } });
    assert.deepEqual(none.completion.values, []);
    const id = await s.client.complete({ ref: { type: 'ref/resource', uri: TEMPLATE }, argument: { name: 'id', value: '1' } });
    assert.deepEqual(id.completion.values, ['1', '12', '123']);
    assert.equal(id.completion.total, 3);
  });

  test('a tool asks the user (elicitation/create)', async () => {
    const res = await s.client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } });
    assert.ok(!res.isError, textOf(res));
    for (const want of ['action=accept', '"username":"ts-user"', '"email":"ts@example.com"']) {
      assert.ok(textOf(res).includes(want), `${want} in ${textOf(res)}`);
    }
    const declined = await s.client.callTool({ name: 'test_elicitation', arguments: { message: 'Please decline this' } });
    assert.ok(textOf(declined).includes('action=decline'), textOf(declined));

    assert.equal(asked.elicit.length, 2);
    const p = asked.elicit[0];
    assert.equal(p.message, 'Please provide your information');
    assert.equal(p.requestedSchema.type, 'object');
    assert.deepEqual(Object.keys(p.requestedSchema.properties).sort(), ['email', 'username']);
    assert.equal(serverRequests('elicitation/create').length, 2, 'two elicitation/create requests on the wire');
  });

  test('a tool asks the model (sampling/createMessage)', async () => {
    const prompt = 'What is the capital of France?';
    const res = await s.client.callTool({ name: 'test_sampling', arguments: { prompt } });
    assert.equal(textOf(res), `LLM response: sampled: ${prompt}`);
    assert.equal(asked.sample.length, 1);
    assert.equal(asked.sample[0].maxTokens, 100);
    assert.deepEqual(asked.sample[0].messages, [{ role: 'user', content: { type: 'text', text: prompt } }]);
    assert.equal(serverRequests('sampling/createMessage').length, 1, 'one sampling/createMessage request on the wire');
  });

  test('resources/subscribe, an update, resources/unsubscribe', async () => {
    const before = await s.client.readResource({ uri: WATCHED });
    assert.match(before.contents[0].text, /version 1\b/);
    await s.client.subscribeResource({ uri: WATCHED });

    const updated = new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error('no notifications/resources/updated within 10s of the change')), 10_000);
      onUpdate = () => { clearTimeout(timer); res(); };
    });
    const touched = await s.client.callTool({ name: 'test_touch_watched_resource', arguments: {} });
    assert.match(textOf(touched), /version 2\b/);
    await updated;
    assert.deepEqual(updates, [WATCHED]);
    const after = await s.client.readResource({ uri: WATCHED });
    assert.match(after.contents[0].text, /version 2\b/);

    await s.client.unsubscribeResource({ uri: WATCHED });
  });
});
