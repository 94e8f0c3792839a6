import { describe, expect, it } from 'vitest';
import { isoTimeOfClock } from '../../mocks/core/iso-time.js';
import { CLOCK_START, dataOf, SIMPLE_ORDER, transports, useSandboxes, type TestSandbox } from '../support/sandbox-harness.js';

/**
 * The control API's views speak one time format, ISO 8601 in UTC with milliseconds (`2026-03-02T10:00:00.000Z`), as
 * a bot in any language reads them; only the state snapshot (`GET /__sandbox/state`, a saved state file's exact
 * format) keeps epoch milliseconds.
 */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A number this large is a time in epoch milliseconds (after 2001), which no control view sends. */
const EPOCH_MS_FLOOR = 1e12;

/** Every value under a key that names a time, and every number that looks like epoch milliseconds, with its path. */
function timesIn(value: unknown, path = 'data'): { path: string; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => timesIn(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return typeof value === 'number' && value > EPOCH_MS_FLOOR ? [{ path, value }] : [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const here = `${path}.${key}`;
    const namesATime = /(^|_)(at|now|time)$/.test(key);
    return namesATime && (typeof inner === 'string' || typeof inner === 'number') ? [{ path: here, value: inner }] : timesIn(inner, here);
  });
}

async function controlViews(t: TestSandbox): Promise<Record<string, unknown>> {
  const rich = t.sandbox.account('rich').token;
  const created = dataOf(await t.request('POST', '/api/v1/me/orders', { token: rich, body: SIMPLE_ORDER }), 201);
  const code = created.invoice.invoice_code as string;
  const views: Record<string, unknown> = {};
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    views[`${method} ${path}`] = dataOf(await t.request(method, path, body === undefined ? {} : { body }), status);
  };
  await call('POST', '/__sandbox/deposits', { amount: 50_000, account: 'demo' }, 201);
  await call('POST', `/__sandbox/invoices/${code}/pay`);
  await call('GET', `/__sandbox/invoices/${code}`);
  for (const list of ['accounts', 'orders', 'invoices', 'deposits', 'clock', 'fixtures', 'faults', 'requests'])
    await call('GET', `/__sandbox/${list}`);
  await call('GET', '/__sandbox/requests/1');
  await call('POST', '/__sandbox/clock', { advance_seconds: 60 });
  return views;
}

describe.each(transports)('the control API over %s', (transport) => {
  const sandbox = useSandboxes();

  it('writes every time in ISO 8601 with a zone, and no epoch milliseconds', async () => {
    const t = await sandbox(transport);
    const views = await controlViews(t);
    const found = Object.entries(views).flatMap(([call, data]) => timesIn(data).map((time) => ({ call, ...time })));
    // The walk finds the times at all: the invoices' three, the clock's two, the journal's.
    expect(found.map((f) => f.path)).toEqual(
      expect.arrayContaining(['data.invoice.created_at', 'data.invoice.paid_at', 'data.now', 'data.next_move_at', 'data.request.time']),
    );
    const wrong = found.filter(({ value }) => !(value === null || (typeof value === 'string' && ISO.test(value))));
    expect(wrong).toEqual([]);
  });

  it('answers the clock as it is, and when it next moves something', async () => {
    const t = await sandbox(transport);
    dataOf(await t.request('POST', '/api/v1/me/orders', { token: t.sandbox.account('rich').token, body: SIMPLE_ORDER }), 201);
    expect(dataOf(await t.request('GET', '/__sandbox/clock'))).toEqual({
      now: new Date(CLOCK_START).toISOString(),
      offset_ms: expect.any(Number),
      // The new order's invoice expires in an hour.
      next_move_at: new Date(CLOCK_START + 3_600_000).toISOString(),
    });
  });

  it('keeps epoch milliseconds in the state snapshot, a saved state file’s own format', async () => {
    const t = await sandbox(transport);
    const state = dataOf(await t.request('GET', '/__sandbox/state'));
    expect(typeof state.tables.accounts[0].created_at).toBe('number');
  });
});

describe("the request journal's clock text", () => {
  it('is what toISOString writes, for times in turn, across seconds, before 1970, past 9999 and between whole ms', () => {
    const start = Date.UTC(2026, 10, 29, 23, 59, 58, 990);
    const times = [
      ...Array.from({ length: 2_100 }, (_, i) => start + i), // across two seconds, a minute, a day and a month
      ...[start, start + 1, start - 1_000, start - 999, start], // back, and the same second again
      ...[-1, -999, -1_000, -1_001, 0, 1, 999, 1_000], // around the epoch
      ...[253_402_300_799_999, 253_402_300_800_000, 253_402_300_800_001, -62_198_755_200_001], // years 9999, 10000, -1
      ...[start + 0.5, start + 1, start + 1.25, start + 2], // not whole: read as they come
    ];
    const wrong = times.filter((time) => isoTimeOfClock(time) !== new Date(time).toISOString());
    expect(wrong).toEqual([]);
  });
});
