// What both pages share: report POSTs a page's outcome to /result on its own
// origin, once; step names the call that failed.

let sent = false;

function post(body) {
  if (sent) return;
  sent = true;
  fetch('/result', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

// Errors nothing awaited (in the SDK's transport, say) fail the page too.
addEventListener('error', (e) => post({ error: `uncaught: ${e.message}` }));
addEventListener('unhandledrejection', (e) => post({ error: `unhandled rejection: ${e.reason?.stack ?? e.reason}` }));

export async function step(name, f) {
  try {
    return await f();
  } catch (e) {
    throw new Error(`${name}: ${e?.message ?? e}`, { cause: e });
  }
}

export function report(run) {
  run().then(
    (result) => post({ result }),
    (e) => post({ error: String(e?.stack ?? e) }),
  );
}
