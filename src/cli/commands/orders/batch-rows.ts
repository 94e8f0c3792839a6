// A batch file's records as order bodies: the field names, their aliases, and one sentence per fault.
import type { CreateOrderRequest } from '../../../contract/orders.js';
import { isVisibleWord } from '../../../contract/visible-word.js';
import type { FileRecord } from './batch-records.js';

type OrderField = 'order_type' | 'platform_username' | 'place_id' | 'platform_pass_id' | 'payment_method' | 'client_reference';

/** Every name a column or key may have: the body's, the document's aliases, and the flags of `orders create`. */
const FIELD_NAMES: Readonly<Record<string, OrderField>> = {
  order_type: 'order_type',
  type: 'order_type',
  platform_username: 'platform_username',
  username: 'platform_username',
  place_id: 'place_id',
  place: 'place_id',
  platform_pass_id: 'platform_pass_id',
  gamepass_id: 'platform_pass_id',
  pass: 'platform_pass_id',
  payment_method: 'payment_method',
  'payment-method': 'payment_method',
  client_reference: 'client_reference',
  reference: 'client_reference',
};

export const KNOWN_FIELD_NAMES = Object.keys(FIELD_NAMES);

/** A row that is a valid order body, or the faults that keep it from being one. */
export type ParsedRow =
  { line: number; body: CreateOrderRequest; errors?: undefined } | { line: number; errors: string[]; body?: undefined };

/**
 * What a username must be before a row is sent: one word, no control characters, of a bounded length. The document
 * shows no rule of its own ("maximum lengths and value ranges: not shown"): the server decides the rest, as it does
 * for `orders create`.
 */
export const USERNAME = /^[^\s\p{Cc}]{1,256}$/u;
export const USERNAME_RULE = 'one word without spaces or control characters, up to 256 characters';

function knownName(name: string): OrderField | undefined {
  return Object.hasOwn(FIELD_NAMES, name) ? FIELD_NAMES[name] : undefined;
}

function quoted(name: string): string {
  return JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
}

/** A whole number from a JSON number or digits in text (CSV has only text). */
function wholeNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** The order body from named values (each field given at most once), with one message per faulty field. */
export function orderFromFields(fields: ReadonlyMap<OrderField, unknown>): { body?: CreateOrderRequest; errors: string[] } {
  const errors: string[] = [];
  const text = (field: OrderField): string | undefined => {
    const value = fields.get(field);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') {
      errors.push(`${field} must be text`);
      return undefined;
    }
    return value.trim() === '' ? undefined : value.trim();
  };
  const id = (field: OrderField, required: boolean): number | undefined => {
    const value = fields.get(field);
    if (value === undefined || value === null || value === '') {
      if (required) errors.push(`${field} is missing`);
      return undefined;
    }
    const n = wholeNumber(value);
    if (n === undefined || n < 1) errors.push(`${field} must be a whole number from 1`);
    return n;
  };

  const type = text('order_type');
  if (type !== undefined && type !== 'gamepass' && type !== 'vip_server') errors.push('order_type must be gamepass or vip_server');
  const username = text('platform_username');
  if (username === undefined) {
    if (!errors.some((e) => e.startsWith('platform_username'))) errors.push('platform_username is missing');
  } else if (!USERNAME.test(username)) errors.push(`platform_username must be ${USERNAME_RULE}`);
  const place = id('place_id', true);
  const pass = id('platform_pass_id', true);
  const paymentMethod = text('payment_method');
  if (paymentMethod !== undefined && !isVisibleWord(paymentMethod, 32))
    errors.push('payment_method must be a code of up to 32 characters without spaces');
  const reference = text('client_reference');
  if (errors.length > 0) return { errors };
  return {
    body: {
      order_type: (type ?? 'gamepass') as CreateOrderRequest['order_type'],
      platform_username: username!,
      place_id: place!,
      platform_pass_id: pass!,
      ...(paymentMethod === undefined ? {} : { payment_method: paymentMethod }),
      ...(reference === undefined ? {} : { client_reference: reference }),
    },
    errors,
  };
}

/** Names to fields, refusing unknown names and a field named twice (`pass` and `gamepass_id`). */
function mapNames(names: readonly string[]): { fields: (OrderField | undefined)[]; errors: string[] } {
  const errors: string[] = [];
  const seen = new Map<OrderField, string>();
  const fields = names.map((raw) => {
    const name = raw.trim();
    const field = knownName(name);
    if (field === undefined) {
      errors.push(`unknown column ${quoted(name)} (known: ${KNOWN_FIELD_NAMES.join(', ')})`);
      return undefined;
    }
    const earlier = seen.get(field);
    if (earlier !== undefined) errors.push(`${quoted(name)} and ${quoted(earlier)} both give ${field}`);
    seen.set(field, name);
    return field;
  });
  return { fields, errors };
}

/** Parses JSON Lines rows: one object a line; blank lines are skipped. */
export function parseJsonLine(record: FileRecord): ParsedRow | undefined {
  const { line } = record;
  if (record.error !== undefined) return { line, errors: [record.error] };
  const text = (record.text ?? '').trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { line, errors: ['not valid JSON'] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { line, errors: ['must be a JSON object'] };
  const names = Object.keys(value);
  const mapped = mapNames(names);
  const fields = new Map<OrderField, unknown>();
  names.forEach((name, i) => {
    const field = mapped.fields[i];
    if (field !== undefined) fields.set(field, (value as Record<string, unknown>)[name]);
  });
  const order = orderFromFields(fields);
  const errors = [...mapped.errors, ...order.errors];
  return errors.length > 0 || order.body === undefined ? { line, errors } : { line, body: order.body };
}

/** Parses CSV rows after the header, which `header()` takes first. */
export class CsvRows {
  #columns: (OrderField | undefined)[] | undefined;

  /** The header's faults, if any (unknown or repeated columns). */
  header(record: FileRecord): ParsedRow | undefined {
    if (record.error !== undefined) return { line: record.line, errors: [record.error] };
    const mapped = mapNames(record.fields ?? []);
    this.#columns = mapped.fields;
    return mapped.errors.length > 0 ? { line: record.line, errors: mapped.errors } : undefined;
  }

  get hasHeader(): boolean {
    return this.#columns !== undefined;
  }

  row(record: FileRecord): ParsedRow | undefined {
    const { line } = record;
    if (record.error !== undefined) return { line, errors: [record.error] };
    const cells = record.fields ?? [];
    if (cells.length === 1 && cells[0]!.trim() === '') return undefined;
    const columns = this.#columns ?? [];
    if (cells.length !== columns.length)
      return { line, errors: [`has ${cells.length} field${cells.length === 1 ? '' : 's'}, the header has ${columns.length}`] };
    const fields = new Map<OrderField, unknown>();
    cells.forEach((cell, i) => {
      const field = columns[i];
      if (field !== undefined) fields.set(field, cell);
    });
    const order = orderFromFields(fields);
    return order.body === undefined ? { line, errors: order.errors } : { line, body: order.body };
  }
}
