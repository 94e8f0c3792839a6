// @ts-check
/**
 * The invoice page's script, inlined into its page (../invoice-page.ts) and allowed by the hash of its text: what
 * differs between invoices comes in through `data-*` attributes of <body>, so the text is the same for every page.
 * It moves the invoice through the control API (as scripts do) and follows the sandbox's request stream to refresh.
 *
 * @typedef {{ payment_status: string, order: { status: string } | null }} InvoiceView
 */

/** @param {string} name */
function pageData(name) {
  const value = document.body.dataset[name];
  if (value === undefined) throw new Error(`The page has no data-${name}.`);
  return value;
}
/** @param {string} id */
function byId(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`The page has no #${id}.`);
  return element;
}

const api = pageData('api');
const controlHeader = pageData('controlHeader');
const base = api + '/invoices/' + encodeURIComponent(pageData('invoice'));
/** When the sandbox next moves something by itself, in ms from when the page was made ('' when nothing is due). */
const nextMoveIn = pageData('nextMoveIn') === '' ? null : Number(pageData('nextMoveIn'));
const status = byId('status');
const orderStatus = byId('order-status');
const message = byId('message');
const buttons = Array.from(document.querySelectorAll('button[data-move]')).filter((button) => button instanceof HTMLButtonElement);
/** @param {InvoiceView} view */
function show(view) {
  status.textContent = view.payment_status;
  status.dataset.status = view.payment_status;
  orderStatus.textContent = view.order ? view.order.status : '—';
  for (const button of buttons) button.disabled = view.payment_status !== 'pending';
}
async function refresh() {
  const answer = await topupControl.controlFetch(base, { headers: { accept: 'application/json' } });
  if (!answer.ok) return;
  /** @type {unknown} */
  const envelope = await answer.json();
  show(/** @type {{ data: { invoice: InvoiceView } }} */ (envelope).data.invoice);
}
/** @param {HTMLButtonElement} button */
async function move(button) {
  // A disabled button loses the focus: a keyboard user is brought back to the button, or, when the invoice is
  // settled and every button stays disabled, to the message saying what happened.
  const hadFocus = document.activeElement === button;
  buttons.forEach((b) => (b.disabled = true));
  const answer = await topupControl.controlFetch(base + '/' + button.dataset.move, {
    method: 'POST',
    headers: { [controlHeader]: '1', accept: 'application/json' },
  });
  /** @type {unknown} */
  const json = await answer.json().catch(() => ({}));
  const body = /** @type {{ message?: string }} */ (json);
  message.textContent = body.message || (answer.ok ? 'Done.' : 'The sandbox refused.');
  await refresh();
  if (hadFocus) (button.disabled ? message : button).focus();
}
for (const button of buttons) button.addEventListener('click', () => void move(button));
// Any change made elsewhere (the CLI, the control API, a bot) shows here: the sandbox streams every request it answers.
topupControl.followRequests(api + '/requests/stream?method=POST,PUT,DELETE', () => void refresh());
// Expiry, auto-pay and the magic values' endings happen on the sandbox's clock, at the next request after they are
// due; a bot's polling GETs are not streamed here, so look again (that GET settles it) when the next one is due.
if (nextMoveIn !== null && nextMoveIn < 2 ** 31) setTimeout(() => void refresh(), nextMoveIn + 250);
void refresh();
