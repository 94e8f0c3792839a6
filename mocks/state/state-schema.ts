import { z } from 'zod';
// A type only: zod's core namespace used in code would make the CLI bundle's zod subset (scripts/cli-bundle.ts) load all of it.
import type { $ZodRawIssue } from 'zod/v4/core';
import * as R from '../store/records.js';
import type { TableName } from '../store/db.js';
import { tableKeys } from '../store/table-keys.js';
import { leanCheckOf, type LeanCheck } from './lean-check.js';
import { CLOCK_MAX, COUNT_MAX, TIME_MIN } from '../store/time-range.js';

export const SNAPSHOT_VERSION = 1;

/** Each table's record schema: the ones the tables check every insert with (mocks/store/db.ts). */
const recordSchemas = {
  accounts: R.AccountRecord,
  tokens: R.TokenRecord,
  chatLinks: R.ChatLinkRecord,
  transactions: R.TransactionRecord,
  invoices: R.InvoiceRecord,
  orders: R.OrderRecord,
  deposits: R.DepositRecord,
  idempotency: R.IdempotencyRecord,
  creditPackages: R.CreditPackageRecord,
  paymentMethods: R.PaymentMethodRecord,
  articles: R.ArticleRecord,
  platformUsers: R.PlatformUserRecord,
  platformPlaces: R.PlatformPlaceRecord,
  platformPasses: R.PlatformPassRecord,
  vipServers: R.VipServerRecord,
} satisfies Record<TableName, z.ZodObject>;

const TABLE_NAMES = Object.keys(recordSchemas) as TableName[];

const COUNTER = `must be a non-negative whole number (at most ${COUNT_MAX})`;
const Counter = z.number({ error: COUNTER }).int({ error: COUNTER }).min(0, { error: COUNTER }).max(COUNT_MAX, { error: COUNTER });
const OFFSET = 'must be a whole number of milliseconds that keeps the sandbox clock between 1970 and 9999';
const TABLE = 'must be a list of records';

const stateFields = {
  version: z.literal(SNAPSHOT_VERSION, { error: `must be ${SNAPSHOT_VERSION}, the only version of a sandbox state` }),
  clock_offset_ms: z.number({ error: OFFSET }).int({ error: OFFSET }),
  counters: z.object({ invoice: Counter, transaction: Counter }, { error: 'must be an object of invoice and transaction counts' }),
};
const TABLES = 'must be an object of every table of the sandbox';

/**
 * A sandbox state: what `GET /__sandbox/state` answers and a state file holds, and the one shape every way in is
 * checked against (a state file at start-up, `PUT /__sandbox/state`, `topup mock state load`, `--seed`).
 * Every table is present, and every record is its table's own schema (mocks/store/records.ts).
 * Built on first use: a check runs StateEnvelope and the record schemas (checkState), so a command that opens a state
 * file need not build this whole-state schema (about 20 zod schemas) as the module loads.
 */
export function sandboxStateSchema() {
  return (sandboxStateSchemaBuilt ??= buildSandboxStateSchema());
}
let sandboxStateSchemaBuilt: ReturnType<typeof buildSandboxStateSchema> | undefined;

function buildSandboxStateSchema() {
  return z.object({
    ...stateFields,
    tables: z.object(
      Object.fromEntries(TABLE_NAMES.map((name) => [name, z.array(recordSchemas[name], { error: TABLE })])) as {
        [K in TableName]: z.ZodArray<(typeof recordSchemas)[K]>;
      },
      { error: TABLES },
    ),
    journal_id: z.string().optional(),
  });
}

export type SandboxState = z.output<ReturnType<typeof sandboxStateSchema>>;

/**
 * The same shape with each table taken as a list only: its records are checked one by one (checkTable), by a
 * lean check read off their zod schema, as a whole-state parse of 100k orders would copy every record.
 */
const StateEnvelope = z.object({
  ...stateFields,
  tables: z.object(
    Object.fromEntries(TABLE_NAMES.map((name) => [name, z.custom<unknown[]>((v) => Array.isArray(v), { error: TABLE })])) as {
      [K in TableName]: z.ZodCustom<unknown[]>;
    },
    { error: TABLES },
  ),
  journal_id: z.string().optional(),
});

const leanChecks = Object.fromEntries(TABLE_NAMES.map((name) => [name, leanCheckOf(recordSchemas[name])])) as Record<
  TableName,
  LeanCheck | undefined
>;

/** Every record of a table against its schema; the first one at fault is refused with zod's own account of why. */
function checkTable(name: TableName, records: readonly unknown[]): void {
  const schema = recordSchemas[name];
  const lean = leanChecks[name];
  records.forEach((record, index) => {
    if (lean?.(record) === true) return;
    const parsed = schema.safeParse(record, { error: plainMessage });
    if (parsed.success) return;
    const issue = parsed.error.issues[0]!;
    throw new StateRefusal(fieldPath(['tables', name, index, ...issue.path]), issue.message);
  });
}

/** A state refused, with the field at fault as a path (`counters.invoice`, `tables.orders[3].created_at`). */
export class StateRefusal extends Error {
  override name = 'StateRefusal';
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}.`);
  }
}

/**
 * The state, checked whole: its shape (sandboxStateSchema), then what a shape cannot say: the clock it gives
 * (`clock` + clock_offset_ms) is within 1970 and 9999, keys are unique, every record names records that exist,
 * counters are past every code already used, and there is an account with a token to use it. Throws StateRefusal
 * for the first problem found.
 */
export function checkState(value: unknown, clock: number): SandboxState {
  return checkStateKeyed(value, clock).state;
}

/** Each table's records by key, as checkState found them: the index a restore's tables take as their own. */
export type StateKeys = { [K in TableName]: Map<string, SandboxState['tables'][K][number]> };

/** checkState, with each table's records by key (StateKeys). */
export function checkStateKeyed(value: unknown, clock: number): { state: SandboxState; keys: StateKeys } {
  // Parsed once per open: without zod's compiled fast path (`jitless`), which costs more to generate and compile
  // (about 3 ms of a CLI command's) than it saves on one object.
  const parsed = StateEnvelope.safeParse(value, { error: plainMessage, jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StateRefusal(fieldPath(issue.path), issue.message);
  }
  for (const name of TABLE_NAMES) checkTable(name, parsed.data.tables[name]);
  // Every record now passes its schema (the records are the input's own objects, which the tables copy on insert).
  const state = parsed.data as unknown as SandboxState;
  const now = clock + state.clock_offset_ms;
  if (!(now >= TIME_MIN && now <= CLOCK_MAX)) throw new StateRefusal('clock_offset_ms', OFFSET);
  return { state, keys: checkRecords(state) };
}

/** The phrase for zod's own issues (a record field of the wrong type, an unknown status), after the field's path. */
function plainMessage(issue: $ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is missing' : `must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return 'is not in the expected format';
    case 'too_small':
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    default:
      return undefined;
  }
}

function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : `${text === '' ? '' : '.'}${String(part)}`;
  return text === '' ? 'the state' : text;
}

/**
 * What every route relies on without checking again (`invoices.get(code)!`, the account of a token): one loop per
 * table, no zod, so a 100k-order state costs milliseconds here.
 */
function checkRecords(state: SandboxState): StateKeys {
  const { tables } = state;
  const keys = {} as Record<TableName, Map<string, unknown>>;
  for (const name of TABLE_NAMES) {
    const keyOf = tableKeys[name] as (record: unknown) => string;
    const records = tables[name] as readonly unknown[];
    const seen = new Map<string, unknown>();
    for (let index = 0; index < records.length; index++) {
      const record = records[index];
      const key = keyOf(record);
      if (seen.has(key)) {
        const first = records.findIndex((other) => keyOf(other) === key);
        throw new StateRefusal(`tables.${name}[${index}]`, `has the same key as tables.${name}[${first}]`);
      }
      seen.set(key, record);
    }
    keys[name] = seen;
  }
  const keyed = keys as StateKeys;
  if (tables.accounts.length === 0) throw new StateRefusal('tables.accounts', 'must hold at least one account');
  if (!tables.tokens.some((t) => !t.revoked)) throw new StateRefusal('tables.tokens', 'must hold at least one token that is not revoked');

  const accountIds = keyed.accounts;
  // Ids as numbers: a record's account_id is a whole number, and an account's key is its id as text.
  const accountNumbers = new Set(tables.accounts.map((account) => account.id));
  const mustName = (table: TableName, index: number, field: string, has: boolean, what: string) => {
    if (!has) throw new StateRefusal(`tables.${table}[${index}].${field}`, `must name ${what}`);
  };
  const ownedBy = (table: 'tokens' | 'chatLinks' | 'transactions' | 'invoices' | 'orders' | 'deposits' | 'idempotency') =>
    tables[table].forEach((record, index) =>
      mustName(table, index, 'account_id', accountNumbers.has(record.account_id), 'an account in tables.accounts'),
    );
  (['tokens', 'chatLinks', 'transactions', 'invoices', 'orders', 'deposits', 'idempotency'] as const).forEach(ownedBy);
  tables.accounts.forEach((account, index) => {
    if (account.live_account_id === undefined) return;
    const live = accountIds.get(String(account.live_account_id));
    mustName(
      'accounts',
      index,
      'live_account_id',
      live !== undefined && live.live_account_id === undefined,
      'another account that is live',
    );
  });
  // An order and a deposit are each one half of a pair with their invoice, as the sandbox makes them.
  const invoices = tables.invoices;
  tables.orders.forEach((order, index) => {
    const invoice = keyed.invoices.get(order.invoice_code);
    mustName('orders', index, 'invoice_code', invoice?.type === 'order', 'an invoice of type order in tables.invoices');
  });
  tables.deposits.forEach((deposit, index) => {
    const invoice = keyed.invoices.get(deposit.invoice_code);
    mustName('deposits', index, 'invoice_code', invoice?.type === 'deposit', 'an invoice of type deposit in tables.invoices');
  });
  invoices.forEach((invoice, index) => {
    const pair = invoice.type === 'order' ? keyed.orders : keyed.deposits;
    mustName('invoices', index, 'invoice_code', pair.has(invoice.invoice_code), `its ${invoice.type} in tables.${invoice.type}s`);
  });
  tables.idempotency.forEach((record, index) =>
    mustName('idempotency', index, 'invoice_code', keyed.orders.has(record.invoice_code), 'an order in tables.orders'),
  );
  // The next code must be new: a counter behind the codes already used would hand one out again.
  const highest = (codes: Iterable<string>, pattern: RegExp) => {
    let max = 0;
    for (const code of codes) {
      const match = pattern.exec(code);
      if (match !== null) max = Math.max(max, Number(match[1]));
    }
    return max;
  };
  const lastInvoice = highest(keyed.invoices.keys(), /^INV\d{8}(\d+)$/);
  if (state.counters.invoice < lastInvoice)
    throw new StateRefusal('counters.invoice', `must be at least ${lastInvoice}, the highest invoice number in tables.invoices`);
  const lastTransaction = highest(keyed.transactions.keys(), /^TRX(\d+)$/);
  if (state.counters.transaction < lastTransaction)
    throw new StateRefusal('counters.transaction', `must be at least ${lastTransaction}, the highest number in tables.transactions`);
  return keyed;
}
