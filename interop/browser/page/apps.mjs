// The host page of TestBrowserApp: the official TypeScript SDK 2.x client
// and @modelcontextprotocol/ext-apps' AppBridge, in the browser, against
// examples/notes on another origin (its URL in the query's "notes"). It
// finds the view search_notes names in its _meta, reads the ui:// resource,
// renders it in an iframe under the CSP its _meta.ui gives, answers the
// view's ui/initialize through the bridge, hands it a search_notes result,
// then fills the view's field and clicks its Add button: the view calls
// add_note and search_notes back through the bridge, which forwards them to
// the server. What it saw is POSTed to /result (report.mjs).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, getToolUiResourceUri, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import { report, step } from './report.mjs';

const EXT = 'io.modelcontextprotocol/ui';
const params = new URLSearchParams(location.search);

// cspOf is the Content-Security-Policy a host builds from _meta.ui.csp: no
// network unless connectDomains lists it, inline script and style only.
function cspOf(csp = {}) {
  const list = (l, none) => (l && l.length ? l.join(' ') : none);
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline' " + list(csp.resourceDomains, ''),
    "style-src 'unsafe-inline' " + list(csp.resourceDomains, ''),
    'connect-src ' + list(csp.connectDomains, "'none'"),
    'frame-src ' + list(csp.frameDomains, "'none'"),
    'base-uri ' + list(csp.baseUriDomains, "'self'"),
  ].join('; ');
}

// until resolves once check() is true, checked on every change of node.
function until(node, check) {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const obs = new MutationObserver(() => {
      if (check()) {
        obs.disconnect();
        resolve();
      }
    });
    obs.observe(node, { childList: true, subtree: true, characterData: true });
  });
}

async function run() {
  const out = {};
  const client = new Client({ name: 'rpcgen-apps-host', version: '1.0.0' }, {
    capabilities: { extensions: { [EXT]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  await step('connect', () => client.connect(new StreamableHTTPClientTransport(new URL(params.get('notes')))));
  out.serverExtension = client.getServerCapabilities()?.extensions?.[EXT] ?? null;

  const { tools } = await step('tools/list', () => client.listTools());
  const tool = tools.find((t) => t.name === 'search_notes');
  out.toolMeta = tool?._meta ?? null;
  const uri = getToolUiResourceUri(tool);
  out.uri = uri ?? null;

  const { resources } = await step('resources/list', () => client.listResources());
  out.listed = resources.find((r) => r.uri === uri) ?? null;
  const read = await step('resources/read', () => client.readResource({ uri }));
  const content = read.contents[0];
  out.mimeType = content.mimeType;
  out.ui = content._meta?.ui ?? null;

  await step('add_note', () => client.callTool({ name: 'add_note', arguments: { text: 'from the host' } }));

  // The view, framed as a host frames it; allow-same-origin only so that this
  // test can click the view's button and read what it rendered.
  const frame = document.createElement('iframe');
  frame.sandbox = 'allow-scripts allow-same-origin allow-forms';
  document.body.append(frame);
  const bridge = new AppBridge(client, { name: 'rpcgen-apps-host', version: '1.0.0' }, { serverTools: {}, serverResources: {} });
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await step('bridge connect', () => bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow)));
  const forward = bridge.oncalltool;
  out.viewCalls = [];
  bridge.oncalltool = (p, extra) => {
    out.viewCalls.push(p.name);
    return forward(p, extra);
  };
  const csp = cspOf(out.ui?.csp);
  out.csp = csp;
  frame.srcdoc = content.text.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`);
  await step('ui/initialize', () => initialized);
  out.appVersion = bridge.getAppVersion() ?? null;

  // The model called search_notes: the host hands the view its input and result.
  const result = await step('search_notes', () => client.callTool({ name: 'search_notes', arguments: { query: '' } }));
  await bridge.sendToolInput({ arguments: { query: '' } });
  await bridge.sendToolResult(result);
  const doc = frame.contentDocument;
  const items = () => [...doc.querySelectorAll('#notes li')].map((li) => li.textContent);
  await step('render', () => until(doc.body, () => items().includes('from the host')));
  out.before = items();

  doc.getElementById('text').value = 'from the view';
  doc.getElementById('add-button').click();
  await step('view add', () => until(doc.body, () => items().includes('from the view')));
  out.after = items();
  out.status = doc.getElementById('status').textContent;

  const check = await step('search after', () => client.callTool({ name: 'search_notes', arguments: { query: 'view' } }));
  out.server = check.structuredContent.result.map((n) => n.text);
  await client.close();
  return out;
}

report(run);
