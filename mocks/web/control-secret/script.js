// @ts-check
/**
 * The pages' side of the control secret (rules/control-guard.ts), inlined before each page's own script and allowed by
 * its own hash. The dashboard's HTML holds no data and is served without the secret; when a data call is refused for
 * the want of it, the page asks for it once and keeps it in sessionStorage: this tab only, gone when it closes, never
 * in a URL (which the journal and history would keep) nor a cookie (which every page on any port of this host would
 * send along). The invoice page reuses what the tab holds. What it offers the page's script: `window.topupControl`.
 */

const SECRET_KEY = 'topup-sandbox-control-secret';
const SECRET_HEADER = (() => {
  const name = document.body.dataset.controlSecretHeader;
  if (name === undefined) throw new Error('The page has no data-control-secret-header.');
  return name;
})();

/** @returns {Record<string, string>} */
function secretHeaders() {
  const secret = sessionStorage.getItem(SECRET_KEY);
  return secret ? { [SECRET_HEADER]: secret } : {};
}

/** @type {Promise<boolean> | undefined} */
let asking;
/**
 * Asks for the secret once for all the calls refused together.
 * @param {string} code
 * @returns {Promise<boolean>}
 */
function askSecret(code) {
  asking ??= Promise.resolve().then(() => {
    const secret = prompt(
      code === 'CONTROL_SECRET_WRONG'
        ? 'That control secret is wrong. The sandbox control secret:'
        : 'This sandbox needs its control secret:',
    );
    asking = undefined;
    if (!secret || !secret.trim()) return false;
    sessionStorage.setItem(SECRET_KEY, secret.trim());
    return true;
  });
  return asking;
}

/**
 * fetch with the secret; asked for when the sandbox says it needs it or it is wrong.
 * @param {string} url
 * @param {RequestInit & { headers?: Record<string, string> }} [init]
 * @returns {Promise<Response>}
 */
async function controlFetch(url, init = {}) {
  for (let tries = 0; ; tries++) {
    const sent = sessionStorage.getItem(SECRET_KEY);
    const answer = await fetch(url, { ...init, headers: { ...init.headers, ...secretHeaders() } });
    if ((answer.status !== 401 && answer.status !== 403) || tries === 5) return answer;
    /** @type {unknown} */
    const envelope = await answer
      .clone()
      .json()
      .catch(() => undefined);
    const code = /** @type {{ error?: { code?: string } } | undefined} */ (envelope)?.error?.code;
    if (code !== 'CONTROL_SECRET_REQUIRED' && code !== 'CONTROL_SECRET_WRONG') return answer;
    // Another call asked while this one was under way: try what it got before asking again.
    if (sessionStorage.getItem(SECRET_KEY) !== sent) continue;
    if (!(await askSecret(code))) return answer;
  }
}

/** The run of the sandbox an event's id names (`12@<instance>`): a new one after a restart. */
/** @param {string} id */
const runOf = (id) => id.slice(id.indexOf('@') + 1);

/**
 * The request stream. EventSource cannot send a header, so with a secret it is read with fetch, reconnecting from the
 * last id it saw as EventSource would. `onEntry` gets each entry and the run of the sandbox that sent it.
 * @param {string} path
 * @param {(entry: unknown, run: string) => void} onEntry
 */
function followRequests(path, onEntry) {
  if (!sessionStorage.getItem(SECRET_KEY)) {
    new EventSource(path).addEventListener('request', (event) => onEntry(JSON.parse(String(event.data)), runOf(event.lastEventId)));
    return;
  }
  void (async () => {
    /** The last event's id as the sandbox wrote it (`12@<instance>`): sent back as it is, as EventSource does. */
    /** @type {string | undefined} */
    let lastId;
    for (;;) {
      try {
        const headers = {
          accept: 'text/event-stream',
          ...secretHeaders(),
          ...(lastId === undefined ? {} : { 'last-event-id': lastId }),
        };
        const answer = await fetch(path, { headers });
        if (!answer.ok || answer.body === null) return;
        const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (.+)$/m.exec(block);
            const data = /^data: (.*)$/m.exec(block);
            if (id) lastId = id[1];
            if (data?.[1] !== undefined) onEntry(JSON.parse(data[1]), runOf(lastId ?? ''));
          }
        }
      } catch {
        // The connection broke: reconnect below, as EventSource would.
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
}

window.topupControl = { controlFetch, followRequests };
