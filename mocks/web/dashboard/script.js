// @ts-check
/**
 * The dashboard's script, inlined into its page (../dashboard.ts) and allowed by the hash of its text: it takes no
 * value from the server but through `data-*` attributes of <body>, so its text never changes between pages.
 * It renders every value with textContent, never as HTML.
 *
 * @typedef {{ name: string, username: string, mode: string, formatted_balance: string }} Account
 * @typedef {{ invoice_code: string, type: string, account: string, formatted_amount: string, payment_status: string,
 *   order: { status: string } | null }} Invoice
 * @typedef {{ kind: string, rate?: number, after?: number, times?: number, status?: number, latency_ms?: number,
 *   routes?: string[] }} FaultRule
 * @typedef {{ seed: number, rules: FaultRule[], stats: { rules: { fired: number, matched: number }[] } }} Faults
 * @typedef {{ now: string, next_move_at: string | null }} Clock
 * @typedef {{ id: number, time: string, method: string, path: string, headers: Record<string, string>,
 *   idempotency_key: string | null, request_body: string | null, status: number | null, response_body: string | null,
 *   duration_ms: number, route: string | null, account: string | null, idempotent_replay: boolean, fault: string | null,
 *   near_miss: string | null }} Entry
 */

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {abstract new () => T} type
 * @returns {T}
 */
function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`The page has no ${type.name} #${id}.`);
  return element;
}
/** @param {string} id */
const $ = (id) => byId(id, HTMLElement);
/** @param {string} id */
const input = (id) => byId(id, HTMLInputElement);
/** @param {string} name */
function pageData(name) {
  const value = document.body.dataset[name];
  if (value === undefined) throw new Error(`The page has no data-${name}.`);
  return value;
}

const API = pageData('api');
const CONTROL_HEADER = pageData('controlHeader');
/**
 * @param {string | number | null | undefined} text
 * @param {string} [className]
 */
const cell = (text, className) => {
  const td = document.createElement('td');
  td.textContent = text == null ? '—' : String(text);
  if (className) td.className = className;
  return td;
};
/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;
/** @param {string} text */
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove('show'), 2500);
}
/**
 * The envelope's data, as the control API documents it: the caller says which shape (the types above).
 * @param {string} path
 * @returns {Promise<unknown>}
 */
async function read(path) {
  const answer = await topupControl.controlFetch(API + path, { headers: { accept: 'application/json' } });
  /** @type {unknown} */
  const envelope = await answer.json();
  return /** @type {{ data: unknown }} */ (envelope).data;
}
/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
async function change(method, path, body) {
  const answer = await topupControl.controlFetch(API + path, {
    method,
    headers: { [CONTROL_HEADER]: '1', 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  /** @type {unknown} */
  const json = await answer.json().catch(() => ({}));
  const envelope = /** @type {{ message?: string }} */ (json);
  toast(envelope.message || (answer.ok ? 'Done.' : 'Refused.'));
  void refreshState();
  return envelope;
}
/** @type {Record<string, [string, string][]>} */
const moves = {
  pending: [
    ['pay', 'Pay'],
    ['expire', 'Expire'],
    ['fail', 'Fail'],
  ],
};
/** @type {ReturnType<typeof setTimeout> | undefined} */
let nextRefresh;
/** What the invoices table shows now, as compared before a refresh rebuilds it. */
let invoicesShown = '';
async function refreshState() {
  const [accounts, invoices, faults, clock] = /** @type {[{ accounts: Account[] }, { invoices: Invoice[] }, Faults, Clock]} */ (
    await Promise.all([read('/accounts'), read('/invoices?limit=50'), read('/faults'), read('/clock')])
  );
  $('clock').textContent = clock.now.replace('T', ' ').slice(0, 19) + ' UTC';
  // Expiry, auto-pay and the magic orders' endings happen when a request comes after they are due: look again then
  // (that GET settles them), so a change nobody asked about still shows.
  clearTimeout(nextRefresh);
  if (clock.next_move_at != null)
    nextRefresh = setTimeout(
      () => void refreshState(),
      Math.min(Math.max(Date.parse(clock.next_move_at) - Date.parse(clock.now), 0) + 250, 2 ** 31 - 1),
    );
  $('accounts').replaceChildren(
    ...accounts.accounts.map((a) => {
      const tr = document.createElement('tr');
      tr.append(cell(a.name), cell(a.username), cell(a.mode), cell(a.formatted_balance, 'num'));
      return tr;
    }),
  );
  // Rebuilt only when something in it changed: a refresh comes with every request, and a button replaced between a
  // key's press and its release (Space), or a mouse's, would never be clicked.
  const shown = JSON.stringify(
    invoices.invoices.map((i) => [
      i.invoice_code,
      i.type,
      i.account,
      i.formatted_amount,
      i.payment_status,
      i.order ? i.order.status : null,
    ]),
  );
  if (shown !== invoicesShown) showInvoices(invoices.invoices);
  invoicesShown = shown;
  $('faults').replaceChildren(
    ...(faults.rules.length === 0
      ? [
          (() => {
            const tr = document.createElement('tr');
            tr.append(cell('none', 'muted'));
            return tr;
          })(),
        ]
      : faults.rules.map((r, i) => {
          const tr = document.createElement('tr');
          const counts = faults.stats.rules[i];
          tr.append(
            cell(r.kind),
            cell(faultWhen(r)),
            cell(r.status ?? (r.kind === 'rate_limit' ? 429 : null)),
            cell((r.routes || ['all']).join(', ')),
            cell(counts ? counts.fired + ' of ' + counts.matched : null, 'num'),
          );
          return tr;
        })),
  );
}
/**
 * The invoices table rebuilt, the keyboard's focus kept on its control (or the next one of its row).
 * @param {Invoice[]} list
 */
function showInvoices(list) {
  const focus = focusedInvoiceControl();
  $('invoices').replaceChildren(
    ...list.map((i) => {
      const tr = document.createElement('tr');
      tr.dataset.invoice = i.invoice_code;
      const actions = document.createElement('td');
      /** @type {[string, string][]} */
      const buttons = [...(moves[i.payment_status] || [])].map(([move, label]) => [
        API + '/invoices/' + encodeURIComponent(i.invoice_code) + '/' + move,
        label,
      ]);
      if (i.order && i.order.status === 'processing')
        buttons.push(
          [API + '/orders/' + encodeURIComponent(i.invoice_code) + '/complete', 'Complete'],
          [API + '/orders/' + encodeURIComponent(i.invoice_code) + '/fail', 'Fail order'],
        );
      for (const [url, label] of buttons) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = label;
        b.setAttribute('aria-label', label + ' ' + i.invoice_code);
        b.addEventListener('click', () => void change('POST', url.slice(API.length)));
        actions.append(b, ' ');
      }
      const link = document.createElement('a');
      link.href = '/user/invoice/' + encodeURIComponent(i.invoice_code);
      link.textContent = i.invoice_code;
      const code = document.createElement('td');
      code.append(link);
      tr.append(
        code,
        cell(i.type),
        cell(i.account),
        cell(i.formatted_amount, 'num'),
        cell(i.payment_status, 'status'),
        cell(i.order ? i.order.status : null),
        actions,
      );
      return tr;
    }),
  );
  restoreInvoiceFocus(focus);
}
/**
 * Which control of the invoices table has the focus, if one has: the table is rebuilt on every refresh, and a keyboard
 * user must not be thrown back to the top of the page each time (nor after pressing Pay, which rebuilds it).
 * @returns {{ invoice: string, label: string | null } | undefined}
 */
function focusedInvoiceControl() {
  const active = document.activeElement;
  const row = active instanceof HTMLElement ? active.closest('#invoices tr') : null;
  if (!(row instanceof HTMLElement) || !(active instanceof HTMLElement) || row.dataset.invoice === undefined) return undefined;
  return { invoice: row.dataset.invoice, label: active.getAttribute('aria-label') };
}
/**
 * The focus back where it was after a rebuild: the same control if it is still there, else the first action of its
 * row (Pay gone once paid: Complete is next), else the row's invoice link.
 * @param {{ invoice: string, label: string | null } | undefined} focus
 */
function restoreInvoiceFocus(focus) {
  if (focus === undefined) return;
  const row = Array.from(byId('invoices', HTMLTableSectionElement).rows).find((r) => r.dataset.invoice === focus.invoice);
  if (row === undefined) return;
  const controls = Array.from(row.querySelectorAll('a, button')).filter((c) => c instanceof HTMLElement);
  const again = controls.find((c) => focus.label !== null && c.getAttribute('aria-label') === focus.label);
  (again ?? controls.find((c) => c instanceof HTMLButtonElement) ?? controls[0])?.focus();
}
/**
 * A rule's rate and sequence in words: "10%", "after 2, 3 times".
 * @param {FaultRule} r
 */
function faultWhen(r) {
  const parts = [];
  if (r.rate !== undefined && (r.rate !== 1 || (r.times === undefined && r.after === undefined)))
    parts.push(Math.round(r.rate * 1000) / 10 + '%');
  if (r.after) parts.push('after ' + r.after);
  if (r.times !== undefined) parts.push(r.times === 1 ? 'once' : r.times + ' times');
  return parts.join(', ') || '100%';
}
/** @type {Entry[]} */
const entries = [];
/** @type {number | undefined} */
let selected;
/** @param {Entry} e */
function matches(e) {
  /** @param {string} id */
  const list = (id) =>
    input(id)
      .value.split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean);
  const methods = list('f-method'),
    statuses = list('f-status'),
    path = input('f-path').value.trim();
  const status = e.status == null ? 'dropped' : String(e.status);
  return (
    (methods.length === 0 || methods.includes(e.method.toLowerCase())) &&
    (statuses.length === 0 || statuses.some((s) => s === status || (/^[1-5]xx$/.test(s) && status[0] === s[0]))) &&
    (path === '' || e.path.startsWith(path))
  );
}
/** @param {Entry} e */
function row(e) {
  const tr = document.createElement('tr');
  tr.dataset.id = String(e.id);
  tr.tabIndex = 0;
  tr.setAttribute('aria-selected', String(selected === e.id));
  const status = e.status == null ? 'dropped' : String(e.status);
  const notes = [
    e.idempotency_key && 'key ' + e.idempotency_key,
    e.idempotent_replay && 'replay',
    e.fault && 'fault: ' + e.fault,
    e.near_miss && 'did you mean ' + e.near_miss + '?',
  ]
    .filter(Boolean)
    .join(' · ');
  tr.append(
    cell(e.time.slice(11, 23)),
    cell(e.method),
    cell(e.path),
    cell(status, 'status s' + status[0]),
    cell(Math.round(e.duration_ms), 'num'),
    cell(e.account),
    cell(e.route),
    cell(notes),
  );
  const open = () => show(e);
  tr.addEventListener('click', open);
  tr.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open();
    }
  });
  return tr;
}
function renderLog() {
  const shown = entries.filter(matches).slice(-200).reverse();
  // The rows are rebuilt on every request: the one that had the keyboard's focus gets it back.
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && active.parentElement === $('log') ? active.dataset.id : undefined;
  $('log').replaceChildren(...shown.map(row));
  $('log-count').textContent = shown.length + ' shown';
  if (focused !== undefined)
    Array.from(byId('log', HTMLTableSectionElement).rows)
      .find((r) => r.dataset.id === focused)
      ?.focus();
}
/**
 * Says the newest request to a screen reader (#log-live, a polite status): the table itself changes too often and
 * too much to be read out whole.
 * @param {Entry} e
 */
function announce(e) {
  $('log-live').textContent = 'Request ' + e.method + ' ' + e.path + ': ' + (e.status == null ? 'dropped' : 'answered ' + e.status) + '.';
}
/** @param {Entry} e */
function show(e) {
  selected = e.id;
  $('detail-id').textContent = '#' + e.id + ' ' + e.method + ' ' + e.path;
  $('detail-id').className = '';
  const blocks = [
    ['Request headers', JSON.stringify(e.headers, null, 2)],
    ['Request body', pretty(e.request_body)],
    ['Response (' + (e.status ?? 'dropped') + ')', pretty(e.response_body)],
    ['Journal entry', JSON.stringify({ ...e, request_body: undefined, response_body: undefined, headers: undefined }, null, 2)],
  ];
  $('detail-body').replaceChildren(
    ...blocks.flatMap(([title, text]) => {
      const h = document.createElement('h3');
      h.textContent = title ?? '';
      h.className = 'muted';
      const pre = document.createElement('pre');
      pre.textContent = text ?? '';
      return [h, pre];
    }),
  );
  renderLog();
}
/** @param {string | null} text */
function pretty(text) {
  if (text == null) return '(none)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
/** @type {ReturnType<typeof setTimeout> | undefined} */
let pending;
function changed() {
  clearTimeout(pending);
  pending = setTimeout(() => void refreshState(), 100);
}
async function start() {
  // Everything the first view needs at once, in parallel: a first visit costs one round trip after the page.
  const [first] = /** @type {[{ requests: Entry[] }, void]} */ (await Promise.all([read('/requests?limit=200'), refreshState()]));
  entries.push(...first.requests);
  renderLog();
  const last = first.requests.at(-1)?.id ?? 0;
  /** @type {string | undefined} */
  let shownRun;
  topupControl.followRequests(API + '/requests/stream?after_id=' + last, (entry, run) => {
    // A restarted sandbox sends its own journal from its start: the log shows that run's requests, not the old ones.
    if (shownRun !== undefined && run !== shownRun) entries.length = 0;
    shownRun = run;
    entries.push(/** @type {Entry} */ (entry));
    if (entries.length > 2000) entries.splice(0, entries.length - 2000);
    renderLog();
    announce(/** @type {Entry} */ (entry));
    changed();
  });
}
// Read when first opened: most visits never look at them.
const fixturesBox = byId('fixtures-box', HTMLDetailsElement);
async function showFixtures() {
  if (fixturesBox.open && $('fixtures').textContent === 'Loading…')
    $('fixtures').textContent = JSON.stringify(await read('/fixtures'), null, 2);
}
fixturesBox.addEventListener('toggle', () => void showFixtures());
for (const id of ['f-method', 'f-status', 'f-path']) $(id).addEventListener('input', renderLog);
async function clearLog() {
  await change('DELETE', '/requests');
  entries.length = 0;
  renderLog();
}
$('clear-log').addEventListener('click', () => void clearLog());
$('reset').addEventListener('click', () => {
  if (confirm('Reset the sandbox to its seed? Every order and deposit goes.')) void change('POST', '/reset');
});
$('clock-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void change('POST', '/clock', { advance_seconds: Number(input('advance').value) });
});
async function addFault() {
  const config = /** @type {Faults} */ (await read('/faults'));
  const kind = byId('fault-kind', HTMLSelectElement).value;
  /** @type {FaultRule} */
  const rule = { kind, rate: Number(input('fault-rate').value) };
  if (kind === 'error') rule.status = Number(input('fault-status').value);
  if (kind === 'latency') rule.latency_ms = 500;
  const routes = input('fault-routes')
    .value.split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (input('fault-times').value !== '') rule.times = Number(input('fault-times').value);
  if (routes.length > 0) rule.routes = routes;
  await change('PUT', '/faults', { seed: config.seed, rules: [...config.rules, rule] });
}
$('fault-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void addFault();
});
$('clear-faults').addEventListener('click', () => void change('DELETE', '/faults'));
void start();
