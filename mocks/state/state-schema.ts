import * as R from '../store/records.js';
import type { TableName } from '../store/db.js';
import {
  isObject,
  list,
  literal,
  optional,
  pathText,
  record,
  text,
  whole,
  type AnyRecordRule,
  type Problem,
  type RecordOf,
} from '../store/record-rules.js';
import { tableKeys } from '../store/table-keys.js';
import { CLOCK_MAX, COUNT_MAX, TIME_MIN } from '../store/time-range.js';

export const SNAPSHOT_VERSION = 1;

/** Each table's record rule: the ones the tables check every insert with (mocks/store/db.ts). */
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
} satisfies Record<TableName, AnyRecordRule>;

const TABLE_NAMES = Object.keys(recordSchemas) as TableName[];

const Counter = whole({ min: 0, max: COUNT_MAX, message: `must be a non-negative whole number (at most ${COUNT_MAX})` });
const OFFSET = 'must be a whole number of milliseconds that keeps the sandbox clock between 1970 and 9999';
const TABLE = 'must be a list of records';
/** Any item: a table's records are checked one by one (checkTable), each by its table's rule. */
const Item = { optional: false, check: () => true, problem: () => undefined } as const;

/**
 * A sandbox state: what `GET /__sandbox/state` answers and a state file holds, and the one shape every way in is
 * checked against (a state file at start-up, `PUT /__sandbox/state`, `topup mock state load`, `--seed`): the
 * envelope below, every table present, and every record its table's own rule (mocks/store/records.ts).
 */
const StateEnvelope = record({
  version: literal(SNAPSHOT_VERSION, `must be ${SNAPSHOT_VERSION}, the only version of a sandbox state`),
  clock_offset_ms: whole({ message: OFFSET }),
  counters: record({ invoice: Counter, transaction: Counter }, 'must be an object of invoice and transaction counts'),
  tables: record(
    Object.fromEntries(TABLE_NAMES.map((name) => [name, list(Item, TABLE)])) as Record<TableName, typeof Item>,
    'must be an object of every table of the sandbox',
  ),
  journal_id: optional(text()),
});

export interface SandboxState {
  version: typeof SNAPSHOT_VERSION;
  clock_offset_ms: number;
  counters: { invoice: number; transaction: number };
  tables: { [K in TableName]: RecordOf<(typeof recordSchemas)[K]>[] };
  journal_id?: string;
}

/**
 * The state's own fields, each read once into a plain object of these alone: what is checked is what is kept. A
 * state is a stranger's object: keys it adds (in `counters`, at the top, an unknown table) are not carried into the
 * sandbox and from there into every snapshot and journal line, and a value it inherits or computes (a getter, through
 * the library's `createSandbox({ snapshot })`) is not read again after it passed. zod's parse made such a copy.
 */
function envelopeOf(value: unknown): unknown {
  if (!isObject(value)) return value;
  const { counters, tables } = value;
  const copy: Record<string, unknown> = {
    version: value.version,
    clock_offset_ms: value.clock_offset_ms,
    counters: isObject(counters) ? { invoice: counters.invoice, transaction: counters.transaction } : counters,
    tables: isObject(tables) ? Object.fromEntries(TABLE_NAMES.map((name) => [name, tables[name]])) : tables,
  };
  const journalId = value.journal_id;
  if (journalId !== undefined) copy.journal_id = journalId;
  return copy;
}

/** Every record of a table against its rule; the first one at fault is refused with the field and why. */
function checkTable(name: TableName, records: readonly unknown[]): void {
  const rule: AnyRecordRule = recordSchemas[name];
  for (let index = 0; index < records.length; index++) {
    if (rule.check(records[index])) continue;
    throw refusal(['tables', name, index], rule.problem(records[index]) ?? { path: [], message: 'is not a valid record' });
  }
}

function refusal(at: readonly (string | number)[], problem: Problem): StateRefusal {
  return new StateRefusal(pathText([...at, ...problem.path], 'the state'), problem.message);
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
 * The state, checked whole: its shape (StateEnvelope and each table's rule), then what a shape cannot say: the clock it gives
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
  const envelope = envelopeOf(value);
  if (!StateEnvelope.check(envelope)) {
    const problem = StateEnvelope.problem(envelope);
    throw problem === undefined ? new StateRefusal('the state', 'must be an object') : refusal([], problem);
  }
  const state = envelope as SandboxState;
  for (const name of TABLE_NAMES) checkTable(name, state.tables[name]);
  // Every record now keeps its rule (the records are the input's own objects, which the tables copy on insert).
  const now = clock + state.clock_offset_ms;
  if (!(now >= TIME_MIN && now <= CLOCK_MAX)) throw new StateRefusal('clock_offset_ms', OFFSET);
  return { state, keys: checkRecords(state) };
}

/**
 * What every route relies on without checking again (`invoices.get(code)!`, the account of a token): one loop per
 * table, so a 100k-order state costs milliseconds here.
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
