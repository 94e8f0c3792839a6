import { CONTROL_SECRET_HEADER } from '../../src/contract/sandbox-control.js';

/**
 * The pages' side of the control secret (rules/control-guard.ts). The dashboard's HTML holds no data and is served
 * without the secret; when a data call is refused for the want of it, the page asks for it once and keeps it in
 * sessionStorage: this tab only, gone when it closes, never in a URL (which the journal and history would keep) nor a
 * cookie (which every page on any port of this host would send along). The invoice page reuses what the tab holds.
 */
export const CONTROL_SECRET_SCRIPT = `
const SECRET_KEY = 'topup-sandbox-control-secret';
function secretHeaders() { const secret = sessionStorage.getItem(SECRET_KEY); return secret ? { ${JSON.stringify(CONTROL_SECRET_HEADER)}: secret } : {}; }
// Fetch with the secret; asked for (once for calls made together) when the sandbox says it needs it or it is wrong.
async function controlFetch(url, init = {}) {
  for (let tries = 0; ; tries++) {
    const sent = sessionStorage.getItem(SECRET_KEY);
    const answer = await fetch(url, { ...init, headers: { ...init.headers, ...secretHeaders() } });
    if ((answer.status !== 401 && answer.status !== 403) || tries === 5) return answer;
    const code = await answer.clone().json().then((e) => e.error && e.error.code, () => undefined);
    if (code !== 'CONTROL_SECRET_REQUIRED' && code !== 'CONTROL_SECRET_WRONG') return answer;
    // Another call asked while this one was under way: try what it got before asking again.
    if (sessionStorage.getItem(SECRET_KEY) !== sent) continue;
    if (!(await askSecret(code))) return answer;
  }
}
function askSecret(code) {
  askSecret.pending ??= Promise.resolve().then(() => {
    const secret = prompt(code === 'CONTROL_SECRET_WRONG' ? 'That control secret is wrong. The sandbox control secret:' : 'This sandbox needs its control secret:');
    askSecret.pending = undefined;
    if (!secret || !secret.trim()) return false;
    sessionStorage.setItem(SECRET_KEY, secret.trim());
    return true;
  });
  return askSecret.pending;
}
// The request stream. EventSource cannot send a header, so with a secret it is read with fetch, reconnecting from the
// last id it saw as EventSource would.
function followRequests(path, onEntry) {
  if (!sessionStorage.getItem(SECRET_KEY)) {
    new EventSource(path).addEventListener('request', (event) => onEntry(JSON.parse(event.data)));
    return;
  }
  (async () => {
    let lastId;
    for (;;) {
      try {
        const answer = await fetch(path, { headers: { accept: 'text/event-stream', ...secretHeaders(), ...(lastId === undefined ? {} : { 'last-event-id': String(lastId) }) } });
        if (!answer.ok) return;
        const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          for (let end = buffer.indexOf('\\n\\n'); end >= 0; end = buffer.indexOf('\\n\\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (\\d+)$/m.exec(block);
            const data = /^data: (.*)$/m.exec(block);
            if (id) lastId = Number(id[1]);
            if (data) onEntry(JSON.parse(data[1]));
          }
        }
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
}
`;
