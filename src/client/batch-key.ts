import type { CreateOrderRequest } from '../contract/orders.js';
import { UsageError } from '../errors.js';

/*
 * A batch row's stable idempotency key: the same row of the same batch gets the same key on every run, so a re-run
 * (after a crash, or with rows appended) can never order a row twice. A row is identified by its client_reference
 * when it has one, else by its content and its place among identical rows (the 2nd of two identical rows is its own
 * order, and stays the 2nd when rows are appended).
 */

/** An order body in one spelling: the pass alias folded in, the default order type written out, keys sorted. */
export function canonicalOrder(body: CreateOrderRequest): string {
  const { gamepass_id, platform_pass_id, ...rest } = body as CreateOrderRequest & { gamepass_id?: number };
  const canonical: Record<string, unknown> = {
    ...rest,
    order_type: body.order_type ?? 'gamepass',
    platform_pass_id: platform_pass_id ?? gamepass_id,
  };
  for (const name of Object.keys(canonical)) if (canonical[name] === undefined) delete canonical[name];
  return JSON.stringify(Object.fromEntries(Object.entries(canonical).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/**
 * Node's own hash where there is one: Web Crypto's digest is a round trip to the thread pool per call, which made the
 * check of a 100,000-row file take minutes. Web Crypto elsewhere (a browser, a worker runtime).
 */
const nodeCrypto = () =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as
    typeof import('node:crypto') | undefined;

async function sha256Hex(text: string): Promise<string> {
  // Looked up at the first hash, not when the client loads: most commands never hash, and node:crypto costs start-up.
  const node = nodeCrypto();
  if (node !== undefined) return node.createHash('sha256').update(text).digest('hex');
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A short fingerprint of a row's content: a ledger compares it to tell a row edited after it was sent. */
export async function orderDigest(body: CreateOrderRequest): Promise<string> {
  return (await sha256Hex(canonicalOrder(body))).slice(0, 24);
}

/** The batch name as it shows in a key: visible, without spaces, at most 40 characters. */
function keyPrefix(batch: string): string {
  return batch.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40) || 'batch';
}

/** The key of a row with this identity in this batch. */
export async function batchRowKey(batch: string, identity: string): Promise<string> {
  return `${keyPrefix(batch)}-${(await sha256Hex(`${batch}\n${identity}`)).slice(0, 32)}`;
}

export interface KeyedRow {
  key: string;
  /** What identifies the row: its client_reference, else its content and its place among identical rows. */
  identity: string;
  digest: string;
}

/**
 * Keys rows of one batch in file order. Holds one counter per distinct unreferenced content (a fingerprint, not the
 * row), so memory grows with distinct rows, never with their size.
 */
export class BatchKeys {
  readonly #seen = new Map<string, number>();
  constructor(readonly batch: string) {
    if (typeof batch !== 'string' || batch === '') throw new UsageError('A batch needs a non-empty name.');
  }

  async next(body: CreateOrderRequest): Promise<KeyedRow> {
    const digest = await orderDigest(body);
    let identity: string;
    if (typeof body.client_reference === 'string' && body.client_reference !== '') identity = `reference:${body.client_reference}`;
    else {
      const occurrence = (this.#seen.get(digest) ?? 0) + 1;
      this.#seen.set(digest, occurrence);
      identity = `content:${digest}#${occurrence}`;
    }
    return { key: await batchRowKey(this.batch, identity), identity, digest };
  }
}
