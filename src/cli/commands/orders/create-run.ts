import { hintCommand } from '../../hint-command.js';
// `topup orders create`'s run, loaded only when the command runs (its flags and help in ./create.ts stay on the eager path).
import type { CreateOrderRequest, CreateOrderResult, OrderType, PaymentMethod, TokenMode } from '../../../contract/index.js';
import { isVisibleWord } from '../../../contract/visible-word.js';
import type { CliContext } from '../../context.js';
import { listIn } from '../shared/answer.js';
import { CliError, UsageError } from '../../errors.js';
import { CHAT_USER_ID_MAX_LENGTH } from '../../settings.js';
import { amountText, creditText, orDash, timeText } from '../../io/format.js';
import { renderFields } from '../../io/table.js';
import { oneLine } from '../../io/sanitize.js';
import { USERNAME, USERNAME_RULE } from './batch-rows.js';
import type { Prompter } from '../../prompter.js';
import { tokenModeOf } from '../auth/token-family.js';
import { DEFAULT_WAIT_TIMEOUT_SECONDS, refreshIntervals, wholeNumberOf } from '../shared/choices.js';
import { unpaidEnding, waitForInvoice } from '../invoices/wait.js';

export interface CreateOrderFlags {
  type?: OrderType | undefined;
  username?: string | undefined;
  place?: number | undefined;
  pass?: number | undefined;
  paymentMethod?: string | undefined;
  reference?: string | undefined;
  idempotencyKey?: string | undefined;
  chatUserId?: string | undefined;
  yes?: boolean | undefined;
}

/** What the order will be, once every required value is known. */
interface OrderDraft {
  type: OrderType | undefined;
  username: string;
  place: number;
  pass: number;
  paymentMethod: string | undefined;
  reference: string | undefined;
  chatUserId: string | undefined;
}

const REQUIRED = [
  ['username', '--username'],
  ['place', '--place'],
  ['pass', '--pass'],
] as const;

/** The required flags a run lacks, in the order the wizard asks for them. */
export function missingFlags(flags: CreateOrderFlags): string[] {
  return REQUIRED.filter(([field]) => flags[field] === undefined).map(([, flag]) => flag);
}

export function orderBody(draft: OrderDraft): CreateOrderRequest {
  return {
    order_type: draft.type ?? 'gamepass',
    platform_username: draft.username,
    place_id: draft.place,
    platform_pass_id: draft.pass,
    ...(draft.paymentMethod === undefined ? {} : { payment_method: draft.paymentMethod }),
    ...(draft.reference === undefined ? {} : { client_reference: draft.reference }),
  };
}

const idempotencyLine = (key: string) => `Idempotency key: ${key}  (repeat safely with --idempotency-key ${key})`;

export async function runCreateOrder(ctx: CliContext, flags: CreateOrderFlags): Promise<void> {
  const missing = missingFlags(flags);
  if (missing.length > 0 && !ctx.io.canPrompt()) {
    throw new UsageError(
      `Missing ${missing.join(', ')}: pass ${missing.length === 1 ? 'it as a flag' : 'them as flags'} (${ctx.io.noPromptReason()}).`,
    );
  }
  const spec = ctx.targetSpec();
  // Chosen before anything is sent, so that even an interrupted run can be repeated without a second order.
  const idempotencyKey = flags.idempotencyKey ?? globalThis.crypto.randomUUID();
  const wizard = missing.length > 0;
  const draft: OrderDraft = wizard
    ? await runWizard(ctx, flags)
    : {
        type: flags.type,
        username: flags.username!,
        place: flags.place!,
        pass: flags.pass!,
        paymentMethod: flags.paymentMethod,
        reference: flags.reference,
        chatUserId: flags.chatUserId ?? (spec.kind === 'remote' ? spec.chatUserId : undefined),
      };
  const live = draft.paymentMethod === 'balance' && (await spendsRealBalance(ctx));
  if (live && !flags.yes && !ctx.io.canPrompt()) {
    throw new UsageError(
      'Paying by balance with a production token spends real money: add --yes to confirm (there is no terminal to ask on).',
    );
  }
  if (!flags.yes && (wizard || live)) await confirmOrder(ctx, draft, idempotencyKey, live);

  // With --json, stderr carries only the error envelope on failure (it holds the key); on success, one line.
  ctx.io.notice(ctx.io.errStyle.dim(idempotencyLine(idempotencyKey)));
  const client = await ctx.client();
  let created: CreateOrderResult;
  let sending: Sending;
  try {
    const {
      idempotencyKey: _sent,
      resent,
      ...data
    } = await client.orders.create(orderBody(draft), {
      idempotencyKey,
      chatUserId: draft.chatUserId,
      signal: ctx.signal,
    });
    created = data;
    sending = { keyGiven: flags.idempotencyKey !== undefined, resent };
  } catch (error) {
    // Ctrl-C ends the run without an error report; the key must still reach the user.
    if (ctx.globals.json && ctx.signal?.aborted) ctx.io.warn(idempotencyLine(idempotencyKey));
    throw error;
  }

  if (ctx.globals.json) {
    try {
      await ctx.io.writeJson(created);
    } catch (error) {
      // The order is made: a --jq filter that fails on its answer (or a closed stdout) must not lose it.
      throw madeButNotShown(error, created.invoice?.invoice_code, idempotencyKey);
    }
    ctx.io.warn(idempotencyLine(idempotencyKey));
    return;
  }
  // stdout is the invoice code a script keeps: an answer without one is said, never printed as a code.
  const code = created.invoice?.invoice_code;
  if (typeof code !== 'string' || code === '')
    throw new CliError(
      `The server accepted the order but its answer has no invoice code; find the order with \`topup orders list\`, or send the same order again with --idempotency-key ${idempotencyKey} to get its answer again.`,
    );
  printCreated(ctx, created, sending);
  // --yes asks nothing, before or after: a script on a terminal (tmux, a pty) must not stop at this question.
  if (ctx.io.canPrompt() && !flags.yes && created.invoice.payment_status === 'pending') await offerToWait(ctx, code);
}

/** How the order was sent: with the user's own --idempotency-key, and again after an attempt whose answer was lost. */
interface Sending {
  keyGiven: boolean;
  resent: boolean;
}

/** An error after the order was made, saying which order and its key (the --json envelope's idempotency_key). */
function madeButNotShown(error: unknown, invoiceCode: unknown, idempotencyKey: string): unknown {
  if (!(error instanceof Error)) return error;
  const code = typeof invoiceCode === 'string' && invoiceCode !== '' ? `Order ${invoiceCode} was created` : 'The order was created';
  error.message = `${code}, but its answer could not be printed: ${error.message}`;
  (error as { idempotencyKey?: string }).idempotencyKey = idempotencyKey;
  return error;
}

function printCreated(ctx: CliContext, created: CreateOrderResult, sending: Sending): void {
  const { invoice } = created;
  const order = invoice.order ?? undefined;
  const payAt = invoice.payment_url || invoice.invoice_url;
  if (ctx.io.terminal) {
    ctx.io.out(
      renderFields(
        [
          ['invoice', ctx.io.style.bold(orDash(invoice.invoice_code))],
          // The order is already made: a part the server left out is a dash, never a failed command.
          [
            'order',
            order === undefined
              ? '-'
              : `${orDash(order.order_type)} for ${orDash(order.platform_username)}, ${creditText(order.credit_amount, true, invoice.currency)} credits`,
          ],
          ['total', amountText(invoice.amount, invoice.formatted_amount, true, invoice.currency)],
          ['payment', `${invoice.payment_method || 'the default method'} (${orDash(invoice.payment_status)})`],
          ...(invoice.payment_url ? [['payment_url', invoice.payment_url] as [string, string]] : []),
          ['invoice_url', orDash(invoice.invoice_url)],
          ...(invoice.payment_status === 'pending' ? [['expires_at', timeText(invoice.expires_at, ctx.io.view)] as [string, string]] : []),
        ],
        { terminal: true, style: ctx.io.style },
      ),
    );
  } else {
    // Piped, stdout is only the invoice code: inv=$(topup orders create ...) just works, even when a server's code
    // holds a line break (shown as its escape, as every value is).
    ctx.io.out(`${oneLine(orDash(invoice.invoice_code))}\n`);
    ctx.io.notice(
      oneLine(
        `Total ${amountText(invoice.amount, invoice.formatted_amount, true, invoice.currency)}, ${orDash(invoice.payment_status)}; ${invoice.payment_status === 'pending' ? `pay at ${orDash(payAt)}` : `invoice ${orDash(invoice.invoice_url)}`}`,
      ),
    );
  }
  const said = createdNotice(created, sending);
  if (said.made) ctx.io.success(oneLine(said.text));
  else ctx.io.notice(ctx.io.errStyle.yellow(said.text));
}

/**
 * What the run made. Only the document's `true` says the order is an earlier one: anything else is no claim that
 * nothing was ordered. After an attempt whose answer was lost, `true` returns that attempt's order: with a key this
 * run made up, it is this run's; with the user's own, it may be an earlier run's.
 */
function createdNotice(created: CreateOrderResult, { keyGiven, resent }: Sending): { made: boolean; text: string } {
  const { invoice } = created;
  const made = `Order ${invoice.invoice_code} created${invoice.payment_status === 'paid' ? ' and paid' : ''}`;
  if (created.idempotent !== true) return { made: true, text: `${made}.` };
  if (resent && !keyGiven)
    return { made: true, text: `${made} (its first answer was lost; sent again with its key, the server returned it).` };
  if (resent)
    return {
      made: false,
      text: "This idempotency key's order was returned after an answer was lost: this run's first attempt made it, or an earlier run with the same key; either way there is one order.",
    };
  return { made: false, text: 'This idempotency key was used before: this is the earlier order, and nothing new was ordered.' };
}

async function offerToWait(ctx: CliContext, invoiceCode: string): Promise<void> {
  const prompter = await ctx.prompter();
  if (!(await prompter.confirm({ message: 'Wait here until the invoice is paid?', default: true }))) {
    ctx.io.notice(`Check it later with: ${hintCommand(ctx, `invoices status ${invoiceCode} --wait`)}`);
    return;
  }
  const status = await waitForInvoice(ctx, invoiceCode, {
    intervalSeconds: refreshIntervals.invoiceStatus.recommended,
    timeoutSeconds: DEFAULT_WAIT_TIMEOUT_SECONDS,
  });
  const unpaid = unpaidEnding(status, invoiceCode);
  if (unpaid !== undefined) throw unpaid;
  ctx.io.success(`Invoice ${invoiceCode} is ${orDash(status.payment_status)}; the order is ${status.order_status ?? 'not reported'}.`);
}

/** The terminal path: ask for what is missing, pick a payment method from the catalog, confirm. */
async function runWizard(ctx: CliContext, flags: CreateOrderFlags): Promise<OrderDraft> {
  const [prompter, { PlatformId }] = await Promise.all([ctx.prompter(), import('../../../contract/orders.js')]);
  const spec = ctx.targetSpec();
  const type =
    flags.type ??
    (await prompter.select<OrderType>({
      message: 'What to order:',
      choices: [
        { name: 'Game pass', value: 'gamepass' },
        { name: 'VIP server', value: 'vip_server' },
      ],
      default: 'gamepass',
    }));
  const username =
    flags.username ??
    (
      await prompter.input({
        message: 'Platform username:',
        validate: (v) => USERNAME.test(v.trim()) || `Use ${USERNAME_RULE}.`,
      })
    ).trim();
  const askId = async (message: string) =>
    Number(
      (
        await prompter.input({
          message,
          validate: (v) => PlatformId.safeParse(wholeNumberOf(v)).success || 'Use a positive whole number.',
        })
      ).trim(),
    );
  const place = flags.place ?? (await askId('Place id:'));
  const pass = flags.pass ?? (await askId(type === 'vip_server' ? 'VIP server id:' : 'Game pass id:'));
  const paymentMethod = flags.paymentMethod ?? (await askPaymentMethod(ctx, prompter));
  let chatUserId = flags.chatUserId ?? (spec.kind === 'remote' ? spec.chatUserId : undefined);
  if (paymentMethod === 'balance' && chatUserId === undefined) {
    chatUserId = (
      await prompter.input({
        message: 'Chat user id linked to this account (paying by balance needs it):',
        validate: (v) => isVisibleWord(v.trim(), CHAT_USER_ID_MAX_LENGTH) || 'Use the id without spaces.',
      })
    ).trim();
  }
  return { type, username, place, pass, paymentMethod, reference: flags.reference, chatUserId };
}

/**
 * Whether this run's token is a production one, so that a balance order spends real money. A profile that remembers
 * production (the mode the server reported at login) is taken at its word; any other token is asked about
 * (token/validate), a profile remembered as sandbox too: a sandbox token cannot pay by balance at all (the interface
 * document), so a balance order under one means the memory is wrong (a hand-edit, a file from elsewhere), and a
 * wrong "sandbox" would let real money go unconfirmed. A mode that cannot be learned counts as production.
 */
export async function spendsRealBalance(ctx: CliContext): Promise<boolean> {
  const target = await ctx.target();
  if (target.kind === 'embedded') return false;
  const known = target.spec.tokenSource === 'profile' && target.spec.mode === 'production' ? 'production' : undefined;
  const mode = known ?? (await (await ctx.client()).token.validate({ signal: ctx.signal })).mode;
  return mode !== 'sandbox';
}

/** The summary on stderr and one question; a live balance order says LIVE and what it spends, and defaults to no. */
async function confirmOrder(ctx: CliContext, draft: OrderDraft, idempotencyKey: string, live: boolean): Promise<void> {
  const prompter = await ctx.prompter();
  const fields = summary(draft, idempotencyKey);
  if (live) {
    const balance = await (await ctx.client()).balance.get({ signal: ctx.signal }).then(
      (b) => amountText(b.balance, b.formatted_balance, true, b.currency),
      () => undefined,
    );
    fields.unshift(['mode', ctx.io.errStyle.red(ctx.io.errStyle.bold('LIVE: pays from the real balance of a production account'))]);
    fields.push(['amount', 'computed by the server when the order is made; it is taken from the balance at once']);
    fields.push(['balance now', balance ?? '-']);
  }
  ctx.io.warn(`\n${renderFields(fields, await ctx.io.stderrFieldsView())}`);
  const question = live
    ? { message: 'Spend real balance on this order?', default: false }
    : { message: 'Create this order?', default: true };
  if (!(await prompter.confirm(question))) throw new CliError('Cancelled; nothing was ordered.');
}

function summary(draft: OrderDraft, idempotencyKey: string): [string, string][] {
  return [
    ['type', draft.type ?? 'gamepass'],
    ['username', draft.username],
    ['place', String(draft.place)],
    [draft.type === 'vip_server' ? 'VIP server' : 'game pass', String(draft.pass)],
    ['payment', draft.paymentMethod ?? 'the default (invoice)'],
    ...(draft.reference === undefined ? [] : [['reference', draft.reference] as [string, string]]),
    ...(draft.chatUserId === undefined ? [] : [['chat user id', draft.chatUserId] as [string, string]]),
    ['idempotency key', idempotencyKey],
  ];
}

/** The methods this token may use, from the catalog; sandbox tokens may only pay by invoice. A method without a code cannot be chosen. */
export function usableMethods(methods: readonly PaymentMethod[], mode: TokenMode | undefined): (PaymentMethod & { code: string })[] {
  return methods.filter(
    (m): m is PaymentMethod & { code: string } =>
      typeof m.code === 'string' && m.code !== '' && (mode !== 'sandbox' || m.sandbox_allowed !== false),
  );
}

async function askPaymentMethod(ctx: CliContext, prompter: Prompter): Promise<string> {
  const [client, target] = await Promise.all([ctx.client(), ctx.target()]);
  const mode = target.kind === 'embedded' ? 'sandbox' : (tokenModeOf(target.token ?? '') ?? target.spec.mode);
  const listed = listIn<PaymentMethod>(await client.catalog.paymentMethods({ signal: ctx.signal }), 'payment_methods');
  // The payment-method record is not in the interface document: a server may list methods without their codes.
  if (listed.length > 0 && listed.every((m) => typeof m.code !== 'string' || m.code === '')) {
    return (
      await prompter.input({
        message: 'Payment method code (the server lists its methods without codes; the default is invoice):',
        default: 'invoice',
        validate: (v) => isVisibleWord(v.trim(), 32) /* payment_method's limit in the contract */ || 'Use the code without spaces.',
      })
    ).trim();
  }
  const methods = usableMethods(listed, mode);
  if (methods.length === 0) throw new CliError('The shop lists no payment method this token may use.');
  const fallback = methods.find((m) => m.is_default) ?? methods[0]!;
  if (methods.length === 1) {
    ctx.io.notice(
      `Payment method: ${fallback.name ?? fallback.code} (${fallback.code})${mode === 'sandbox' ? ', the only one sandbox tokens may use' : ''}.`,
    );
    return fallback.code;
  }
  return prompter.select<string>({
    message: 'Payment method:',
    choices: methods.map((m) => ({
      name: `${m.name ?? m.code} (${m.code})`,
      value: m.code,
      description: [
        m.description,
        m.requires_chat_link ? 'Needs the linked chat user id.' : undefined,
        m.formatted_min_amount && m.formatted_max_amount ? `${m.formatted_min_amount} to ${m.formatted_max_amount}.` : undefined,
      ]
        .filter(Boolean)
        .join(' '),
    })),
    default: fallback.code,
  });
}
