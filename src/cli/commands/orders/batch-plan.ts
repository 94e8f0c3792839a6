// The check before anything is sent: every row parsed and keyed, every fault listed with its line, what would be sent.
import { BatchKeys } from '../../../client/batch-key.js';
import type { CreateOrderRequest } from '../../../contract/orders.js';
import type { LedgerIndex } from './batch-ledger.js';
import { CsvRows, parseJsonLine, type ParsedRow } from './batch-rows.js';
import type { BatchSource } from './batch-source.js';
import { groupThousands } from '../../../contract/money.js';
import { UsageError } from '../../errors.js';

/** Faults listed one a line before the rest are counted: enough to fix a file, never a flood. */
export const MAX_LISTED_FAULTS = 100;

export interface KeyedOrder {
  line: number;
  body: CreateOrderRequest;
  key: string;
  digest: string;
}

/**
 * The most rows one batch takes: at 10 orders a minute, the published limit, about a week of sending. The check keeps
 * a fingerprint per row, so an endless input would otherwise fill memory.
 */
export const MAX_BATCH_ROWS = 100_000;

/**
 * Every row of the file, parsed (blank ones skipped); a CSV file's header is checked and not yielded unless faulty.
 * Past MAX_BATCH_ROWS rows, reading stops with a usage error (blank lines are bounded by the input's size).
 */
export async function* parsedRows(source: BatchSource): AsyncGenerator<ParsedRow> {
  const csv = source.format === 'csv' ? new CsvRows() : undefined;
  let rows = 0;
  for await (const record of source.records()) {
    if (csv !== undefined && !csv.hasHeader) {
      if (record.fields?.length === 1 && record.fields[0]!.trim() === '') continue;
      const fault = csv.header(record);
      if (fault !== undefined) yield fault;
      continue;
    }
    const row = csv === undefined ? parseJsonLine(record) : csv.row(record);
    if (row === undefined) continue;
    if (++rows > MAX_BATCH_ROWS)
      throw new UsageError(
        `${source.name === '-' ? 'stdin' : source.name} has more than ${groupThousands(MAX_BATCH_ROWS)} rows, the most one batch takes; split it into batches of their own (each with its own --batch name).`,
      );
    yield row;
  }
}

/** The valid rows with their keys, in file order; faulty rows come through as they are (the plan has refused them). */
export async function* keyedRows(source: BatchSource, batch: string): AsyncGenerator<KeyedOrder | (ParsedRow & { body?: undefined })> {
  const keys = new BatchKeys(batch);
  for await (const row of parsedRows(source)) {
    if (row.body === undefined) {
      yield row;
      continue;
    }
    const { key, digest } = await keys.next(row.body);
    yield { line: row.line, body: row.body, key, digest };
  }
}

export interface BatchPlan {
  /** Valid rows. */
  rows: number;
  /** Rows the ledger has answered as created or existing: never sent again. */
  answered: number;
  /** Rows the ledger has as rejected: sent again only with --retry-rejected. */
  rejectedBefore: number;
  /** Rows sent before whose answer never arrived (a crash): sent again with their key. */
  inFlight: number;
  /** Rows this run would send. */
  toSend: number;
  /** Of those, the rows that pay by balance. */
  balanceRows: number;
  /** "line 7: place_id must be a whole number from 1", the first MAX_LISTED_FAULTS of them. */
  faults: string[];
  faultCount: number;
  /**
   * What was checked of each valid row, by line (its key and digest): the run reads the file again to send it, and a
   * row that is not what was checked (the file edited meanwhile) must never be sent unchecked.
   */
  checked: Map<number, string>;
}

/**
 * Reads the whole input once, holding one row at a time plus a fingerprint per client_reference: the faults of every
 * row, and what a run would send given the ledger.
 */
export async function planBatch(
  source: BatchSource,
  batch: string,
  ledger: LedgerIndex | undefined,
  options: { retryRejected: boolean },
): Promise<BatchPlan> {
  const plan: BatchPlan = {
    rows: 0,
    answered: 0,
    rejectedBefore: 0,
    inFlight: 0,
    toSend: 0,
    balanceRows: 0,
    faults: [],
    faultCount: 0,
    checked: new Map(),
  };
  const fault = (line: number, message: string) => {
    plan.faultCount += 1;
    if (plan.faults.length < MAX_LISTED_FAULTS) plan.faults.push(`line ${line}: ${message}`);
  };
  /** Each key's first line and content: a repeated row is one order, a reference reused for another order a fault. */
  const seen = new Map<string, string>();
  for await (const row of keyedRows(source, batch)) {
    if (row.body === undefined) {
      for (const message of row.errors) fault(row.line, message);
      continue;
    }
    plan.rows += 1;
    plan.checked.set(row.line, checkedAs(row));
    const earlier = seen.get(row.key);
    if (earlier !== undefined) {
      const [line, digest] = earlier.split(' ');
      // The same key with other content can only be a client_reference given to two different orders.
      if (digest !== row.digest)
        fault(
          row.line,
          `client_reference ${JSON.stringify(row.body.client_reference)} is on line ${line} too, with another order; a reference names one order`,
        );
      continue;
    }
    seen.set(row.key, `${row.line} ${row.digest}`);
    const known = ledger?.rows.get(row.key);
    if (known !== undefined && known.digest !== row.digest) {
      fault(row.line, `changed since it was sent with key ${row.key}; give it a new client_reference or run it under another --batch`);
      continue;
    }
    const state = known?.state;
    if (state === 'created' || state === 'existed') plan.answered += 1;
    else if (state === 'rejected' && !options.retryRejected) plan.rejectedBefore += 1;
    else {
      if (state === 'sent') plan.inFlight += 1;
      plan.toSend += 1;
      if (row.body.payment_method === 'balance') plan.balanceRows += 1;
    }
  }
  return plan;
}

/** What a row's check is remembered as (BatchPlan.checked). */
export function checkedAs(row: Pick<KeyedOrder, 'key' | 'digest'>): string {
  return `${row.key} ${row.digest}`;
}
