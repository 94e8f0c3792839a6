import { getEventListeners } from 'node:events';
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

  describe('many callers waiting at once', () => {
    /** Starts `count` acquires at once, each released as soon as it is granted; records who went when. */
    function crowd(pacer: Pacer, rateClass: keyof typeof limits, count: number, signal?: AbortSignal) {
      const granted: { caller: number; at: number }[] = [];
      const calls = Array.from({ length: count }, (_, caller) =>
        pacer.acquire(rateClass, signal).then((release) => {
          granted.push({ caller, at: Date.now() });
          release();
        }),
      );
      return { granted, calls };
    }

    it('serves 5,000 waiting calls at the limit, first come first served, with one timer for the class', async () => {
      const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
      const { granted, calls } = crowd(pacer, 'user-read', 5_000);
      await vi.advanceTimersByTimeAsync(0);
      expect(granted).toHaveLength(60);
      expect(pacer.waiting).toBe(4_940);
      // Waking each waiter on its own timer sent 48 of 20,000 such calls in 8 s.
      expect(vi.getTimerCount()).toBe(1);
      await vi.runAllTimersAsync();
      await Promise.all(calls);
      expect(granted.map((g) => g.caller)).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
      // 60 a minute: call i goes at the start of minute floor(i / 60).
      expect(granted.every((g) => g.at === Math.floor(g.caller / 60) * 60_000)).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('gives in-flight slots in arrival order across classes', async () => {
      const pacer = new Pacer({ clock: systemClock, limits, maxInFlight: 1 });
      const order: string[] = [];
      const held: Release[] = [];
      const first = await pacer.acquire('user-read');
      const calls = (['public-read', 'user-read', 'create-order', 'public-read'] as const).map((rateClass, i) =>
        pacer.acquire(rateClass).then((release) => {
          order.push(`${i}:${rateClass}`);
          held.push(release);
        }),
      );
      first();
      for (let i = 0; i < 4; i++) {
        await vi.advanceTimersByTimeAsync(0);
        expect(order).toHaveLength(i + 1);
        held[i]!();
      }
      await Promise.all(calls);
      expect(order).toEqual(['0:public-read', '1:user-read', '2:create-order', '3:public-read']);
    });

    it('listens once to a signal that many calls share, and an abort ends them all and leaves no timer', async () => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      try {
        const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
        const controller = new AbortController();
        const { granted, calls } = crowd(pacer, 'create-order', 50, controller.signal);
        const settled = Promise.allSettled(calls);
        await vi.advanceTimersByTimeAsync(0);
        expect(granted).toHaveLength(2);
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
        const reason = new Error('stop');
        controller.abort(reason);
        const outcomes = await settled;
        expect(outcomes.filter((o) => o.status === 'rejected' && o.reason === reason)).toHaveLength(48);
        expect(pacer.waiting).toBe(0);
        expect(vi.getTimerCount()).toBe(0);
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('lets the calls behind one that gave up go in its place', async () => {
      const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
      await burst(pacer, 'create-order', 2);
      const controller = new AbortController();
      const order: number[] = [];
      const calls = [0, 1, 2].map((i) =>
        pacer.acquire('create-order', i === 0 ? controller.signal : undefined).then((release) => {
          order.push(i);
          release();
        }),
      );
      controller.abort(new Error('gave up'));
      await expect(calls[0]).rejects.toThrow('gave up');
      await vi.runAllTimersAsync();
      await Promise.all(calls.slice(1));
      expect(order).toEqual([1, 2]);
      expect(Date.now()).toBe(10_000);
    });

    it('tells each waiting call how long it waits, from its place in the queue, and again only if that grows', async () => {
      const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
      const told: number[][] = [[], [], [], [], []];
      const calls = told.map((waits) => pacer.acquire('create-order', undefined, (ms) => waits.push(ms)).then((release) => release()));
      await vi.advanceTimersByTimeAsync(0);
      // Two go now; then two each 10 s window.
      expect(told).toEqual([[], [], [10_000], [10_000], [20_000]]);
      await vi.advanceTimersByTimeAsync(5_000);
      pacer.observe('create-order', { retryAfter: 10 });
      await vi.runAllTimersAsync();
      await Promise.all(calls);
      // At 5 s a 429's Retry-After moves the next start from 10 s to 15 s: the call at the head hears it at once (10 s
      // from then), the others when they reach the head. The last now goes at 25 s, told so at 15 s.
      expect(told).toEqual([[], [], [10_000, 10_000], [10_000], [20_000, 10_000]]);
      expect(Date.now()).toBe(25_000);
    });

    it('ends only the call whose onWait throws', async () => {
      const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
      await burst(pacer, 'create-order', 2);
      const failing = pacer.acquire('create-order', undefined, () => {
        throw new Error('hook broke');
      });
      const next = pacer.acquire('create-order');
      await expect(failing).rejects.toThrow('hook broke');
      await vi.runAllTimersAsync();
      const release = await next;
      release();
      expect(Date.now()).toBe(10_000);
      expect(pacer.waiting).toBe(0);
    });

    it('a hook that aborts a call while turns are handed out never costs an in-flight slot', async () => {
      // A clock whose timers fire only when the test says: a turn can be due before its timer has run.
      let now = 0;
      const clock = { now: () => now, sleep: () => new Promise<void>(() => undefined), random: () => 0.5 };
      const pacer = new Pacer({ clock, limits, marginMs: 0 });
      const controller = new AbortController();
      pacer.observe('public-read', { retryAfter: 2 });
      pacer.observe('create-order', { retryAfter: 5 });
      const due = pacer.acquire('public-read', controller.signal);
      const told: number[] = [];
      const impatient = pacer.acquire('create-order', undefined, (ms) => {
        told.push(ms);
        if (ms >= 10_000) controller.abort(new Error('too long a wait'));
      });
      now = 3_000;
      // The class's wait grows to a whole window: the hook aborts the other call, whose turn has come.
      pacer.observe('create-order', { retryAfter: 60 });
      const outcome = await due.then(
        (release) => {
          release();
          return 'granted';
        },
        () => 'aborted',
      );
      expect(told).toEqual([5_000, 10_000]);
      expect(['granted', 'aborted']).toContain(outcome);
      expect(pacer.inFlight).toBe(0);
      const [a, b] = await Promise.all([pacer.acquire('user-read'), pacer.acquire('user-read')]);
      expect(pacer.inFlight).toBe(2);
      a();
      b();
      void impatient.catch(() => undefined);
    });

    it('tells a wait again only when it grows by more than a second', async () => {
      const pacer = new Pacer({ clock: systemClock, limits, marginMs: 0 });
      await burst(pacer, 'create-order', 2);
      const told: number[] = [];
      const waiting = pacer.acquire('create-order', undefined, (ms) => told.push(ms));
      await vi.advanceTimersByTimeAsync(0);
      // Answers a few milliseconds apart, each with a reset past the window (capped at one window from then): the wait
      // moves on by those milliseconds, and is the same wait.
      for (const at of [30, 400]) {
        await vi.advanceTimersByTimeAsync(at - Date.now());
        pacer.observe('create-order', { remaining: 0, resetAt: 10 ** 12 });
      }
      expect(told).toEqual([10_000]);
      // At 5 s, a reset at 15 s: 5 s longer than told, said again (10 s from then).
      await vi.advanceTimersByTimeAsync(5_000 - Date.now());
      pacer.observe('create-order', { remaining: 0, resetAt: 15_000 });
      expect(told).toEqual([10_000, 10_000]);
      await vi.runAllTimersAsync();
      (await waiting)();
    });
  });
});
