import type { EndpointId } from '../contract/endpoints.js';
import { TopupError } from '../errors.js';

/**
 * What is read inside an endpoint's `data`, by the client and by whoever uses its answers, beyond the data object
 * itself: lists whose items are records (a table row reads their fields), and records read without a check (the
 * order-creation answer's `invoice`, which the document guarantees). Nothing else is checked: a field the document
 * leaves optional may be missing, and fields nobody knows pass through as they are.
 */
const READ_INSIDE: Partial<Record<EndpointId, { lists?: readonly string[]; records?: readonly string[] }>> = {
  listCreditPackages: { lists: ['packages'] },
  listPaymentMethods: { lists: ['payment_methods'] },
  listArticles: { lists: ['articles'] },
  listBalanceTransactions: { lists: ['transactions'] },
  listDeposits: { lists: ['deposits'] },
  listOrders: { lists: ['orders'] },
  getDashboardSummary: { lists: ['recent_orders'] },
  createOrder: { records: ['invoice'] },
};

/**
 * The envelope's `data` of one endpoint's answer, checked as far as it is read: a success envelope whose `data` is an
 * object, and in it records where records are read. An answer that is not is one TopupError with a sentence, never a
 * TypeError later, when a field of null is read.
 */
export function dataOf(id: EndpointId, body: unknown, status: number): unknown {
  if (typeof body !== 'object' || body === null || !('data' in body) || (body as { success?: unknown }).success !== true) {
    throw new TopupError('The server answered without a success envelope.', { status });
  }
  const { data } = body;
  if (!isRecord(data)) throw new TopupError(`The server's answer has ${kindOf(data)} instead of a data object.`, { status });
  const inside = READ_INSIDE[id];
  for (const key of inside?.records ?? []) {
    if (!isRecord(data[key])) throw new TopupError(`The server's answer has no ${key}.`, { status });
  }
  for (const key of inside?.lists ?? []) {
    const items = data[key];
    // A list left out, or not a list, is for its reader to tell ("has no … list"); only what is in a list is checked here.
    if (!Array.isArray(items)) continue;
    const at = items.findIndex((item) => !isRecord(item));
    if (at !== -1) {
      throw new TopupError(`The server's answer has ${kindOf(items[at])} instead of a record at item ${at + 1} of its ${key} list.`, {
        status,
      });
    }
  }
  return data;
}

/** A JSON object: not null, not a list. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How a value that is not what it should be is named in a message: `null`, `a list`, `a string`, `an object`, … */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
