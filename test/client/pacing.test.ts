import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/client/clock.js';
import { Pacer, type Release } from '../../src/client/pacing.js';

const limits = {
  'public-read': { limit: 3, windowSeconds: 60 },
  'user-read': { limit: 60, windowSeconds: 60 },
  'create-order': { limit: 2, windowSeconds: 10 },
  'token-validate': { limit: 30, windowSeconds: 60 },
} as const;

/** Acquires `count` slots one after another (each released at once) and records when each was granted. */
async function burst(pacer: Pacer, rateClass: keyof typeof limits, count: number): Promise<number[]> {
  const grantedAt: number[] = [];
  const run = (async () => {
    for (let i = 0; i < count; i++) {
      const release = await pacer.acquire(rateClass);
      grantedAt.push(Date.now());
      release();
    }
  })();
  await vi.runAllTimersAsync();
  await run;
  return grantedAt;
}

describe('Pacer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    { rateClass: 'public-read' as const, count: 7, expected: [0, 0, 0, 60_050, 60_050, 60_050, 120_100] },
    { rateClass: 'create-order' as const, count: 5, expected: [0, 0, 10_050, 10_050, 20_100] },
  ])('spaces a burst of $count $rateClass requests to the limit', async ({ rateClass, count, expected }) => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 50 });
    expect(await burst(pacer, rateClass, count)).toEqual(expected);
  });

  it('never lets any window hold more than the limit', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
    const times = await burst(pacer, 'user-read', 200);
    for (const [i, t] of times.entries()) {
      const inWindow = times.filter((other) => other > t - limits['user-read'].windowSeconds * 1000 && other <= t).length;
      expect(inWindow, `request ${i} at ${t}`).toBeLessThanOrEqual(60);
    }
    // The minimum the limit allows: 60 at once, then 60 more each minute.
    expect(times.at(-1)).toBe(180_000);
  });

  it('keeps rate classes apart', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
    await burst(pacer, 'create-order', 2);
    expect(await burst(pacer, 'public-read', 3)).toEqual([0, 0, 0]);
  });

  it('holds at most maxInFlight requests open', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, maxInFlight: 2 });
    const releases: Release[] = [];
    const order: number[] = [];
    const waiting = [0, 1, 2, 3].map(async (i) => {
      const release = await pacer.acquire('user-read');
      order.push(i);
      releases.push(release);
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual([0, 1]);
    expect(pacer.inFlight).toBe(2);
    releases[0]!();
    releases[0]!(); // a second release of the same slot changes nothing
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual([0, 1, 2]);
    expect(pacer.inFlight).toBe(2);
    releases[1]!();
    await Promise.all(waiting);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('waits until the reported reset when the server says nothing remains', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 50 });
    const release = await pacer.acquire('user-read');
    pacer.observe('user-read', { remaining: 0, resetAt: 42_000 });
    release();
    expect(await burst(pacer, 'user-read', 1)).toEqual([42_050]);
  });

  it('spends the reported remaining budget, then waits for the reset', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
    const release = await pacer.acquire('user-read');
    pacer.observe('user-read', { remaining: 2, resetAt: 30_000 });
    release();
    expect(await burst(pacer, 'user-read', 4)).toEqual([0, 0, 30_000, 30_000]);
  });

  it('counts other requests in flight against the reported remaining', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
    const first = await pacer.acquire('user-read');
    const second = await pacer.acquire('user-read');
    // The answer to `first` did not count `second` yet.
    pacer.observe('user-read', { remaining: 1, resetAt: 30_000 });
    first();
    second();
    expect(await burst(pacer, 'user-read', 2)).toEqual([30_000, 30_000]);
  });

  it('blocks the class for Retry-After after a 429', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
    pacer.observe('create-order', { retryAfter: 7 });
    expect(await burst(pacer, 'create-order', 1)).toEqual([7_000]);
    expect(await burst(pacer, 'user-read', 1)).toEqual([7_000]);
  });

  it('ignores a reset in the past and caps one beyond a window', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
    pacer.observe('create-order', { remaining: 0, resetAt: -5 });
    expect(await burst(pacer, 'create-order', 1)).toEqual([0]);
    pacer.observe('create-order', { remaining: 0, resetAt: 10 ** 15 });
    expect(await burst(pacer, 'create-order', 1)).toEqual([10_000]);
  });

  it('rejects with the signal reason while waiting', async () => {
    const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
    await burst(pacer, 'create-order', 2);
    const controller = new AbortController();
    const waiting = pacer.acquire('create-order', controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(pacer.inFlight).toBe(0);
  });
});
