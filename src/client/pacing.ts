import { MAX_IN_FLIGHT_CLIENT, rateClasses, type RateClass } from '../contract/rate-limits.js';
import { whenAborted } from '../abort.js';
import type { Clock } from './clock.js';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface PacerOptions {
  clock: Clock;
  limits?: Readonly<Record<RateClass, RateLimit>>;
  maxInFlight?: number;
  /** Extra wait past a window's edge, for latency between our clock and the server's. */
  marginMs?: number;
}

/** What a response says about the limits; all optional because the server sends them only when available. */
export interface RateLimitReport {
  /** X-RateLimit-Remaining. */
  remaining?: number | undefined;
  /** X-RateLimit-Reset, as epoch milliseconds. */
  resetAt?: number | undefined;
  /** Retry-After of a 429, in seconds. */
  retryAfter?: number | undefined;
}

/** Gives back the in-flight slot; calling it twice is harmless. */
export type Release = () => void;

/** A caller of `acquire` waiting its turn. */
interface Waiter {
  /** Its place: arrival order across every class, kept by a call's retries. The in-flight slots go by it too. */
  readonly seq: number;
  readonly rateClass: RateClass;
  readonly grant: (release: Release) => void;
  readonly refuse: (reason: unknown) => void;
  readonly onWait: ((ms: number) => void) | undefined;
  /** Until when it was told it would wait (epoch ms); it is told again only if the wait grows by more than a second. */
  toldUntil: number;
  done: boolean;
  stopWatching: (() => void) | undefined;
}

/** A wait already told is told again only when it grows by more than this: not for each answer's few milliseconds. */
const RETELL_MS = 1_000;

/**
 * Spaces requests so that no rate class ever exceeds its published limit and at most `maxInFlight` requests
 * are open at once. Each class keeps a log of its send times over the last window (a sliding-window log:
 * exact, and simple to reason about); the server's own counters, when it reports them, can only make us wait longer.
 *
 * Callers wait in one queue per class in the order of their places (first come first served; a retry keeps its call's
 * place), and only the head of each queue is looked at: one timer per class and one abort listener per signal, however
 * many calls wait. (Waking every waiter on each release sent 48 of 20,000 queued calls in 8 s.) The callers' onWait
 * hooks run once the queues are settled, never in the middle of handing out a turn.
 */
export class Pacer {
  readonly #clock: Clock;
  readonly #limits: Readonly<Record<RateClass, RateLimit>>;
  readonly #maxInFlight: number;
  readonly #marginMs: number;
  readonly #sent = new Map<RateClass, number[]>();
  readonly #blockedUntil = new Map<RateClass, number>();
  readonly #serverBudget = new Map<RateClass, { remaining: number; resetAt: number }>();
  readonly #inFlightByClass = new Map<RateClass, number>();
  #inFlight = 0;
  readonly #queues = new Map<RateClass, WaiterQueue>();
  readonly #timers = new Map<RateClass, { at: number; cancel: AbortController }>();
  /** Waits to tell, gathered while the queues are being settled and told after. */
  #toTell: { waiter: Waiter; ms: number }[] = [];
  #nextPlace = 0;
  #pumping = false;
  #pumpAgain = false;

  constructor(options: PacerOptions) {
    this.#clock = options.clock;
    this.#limits = options.limits ?? rateClasses;
    this.#maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT_CLIENT;
    this.#marginMs = options.marginMs ?? 50;
  }

  /** A place in the queues, for a call to keep across its attempts: its retries then go before calls made after it. */
  takePlace(): number {
    return this.#nextPlace++;
  }

  /**
   * Waits its turn until a request of `rateClass` may be sent, then counts it as sent and in flight. `place` (from
   * takePlace) is the call's own; without it, a new one at the back.
   */
  acquire(rateClass: RateClass, signal?: AbortSignal, onWait?: (ms: number) => void, place?: number): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Release>((grant, refuse) => {
      const seq = place ?? this.takePlace();
      const waiter: Waiter = { seq, rateClass, grant, refuse, onWait, toldUntil: 0, done: false, stopWatching: undefined };
      const ahead = this.#queueOf(rateClass).insert(waiter);
      if (signal !== undefined)
        waiter.stopWatching = whenAborted(signal, () => {
          this.#giveUp(waiter, signal.reason);
          this.#pump();
        });
      this.#pump();
      if (!waiter.done) {
        const now = this.#clock.now();
        this.#tellWait(waiter, now, this.#estimatedStart(rateClass, ahead, now));
        this.#tellWaiting();
      }
    });
  }

  /**
   * Counts sends made before this pacer existed: a batch resumed after a crash keeps to the limit from the send
   * times its ledger recorded, instead of starting from zero.
   */
  recordSent(rateClass: RateClass, sentAt: Iterable<number>): void {
    const sent = this.#sentLog(rateClass);
    sent.push(...sentAt);
    sent.sort((a, b) => a - b);
    const { limit } = this.#limits[rateClass];
    if (sent.length > limit) sent.splice(0, sent.length - limit);
  }

  /**
   * Waits until a request of `rateClass` could be sent, without taking the slot: a caller that must record the send
   * time before sending (a batch's ledger) records the time it will really go.
   */
  async whenAllowed(rateClass: RateClass, signal?: AbortSignal, onWait?: (ms: number) => void): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.#timeUntilAllowed(rateClass, this.#clock.now());
      if (wait <= 0) return;
      onWait?.(wait);
      await this.#clock.sleep(wait, signal);
    }
  }

  /** Resynchronises from what the server reported in an answer of `rateClass`. */
  observe(rateClass: RateClass, report: RateLimitReport): void {
    const now = this.#clock.now();
    const windowMs = this.#windowMs(rateClass);
    if (report.retryAfter !== undefined) {
      const until = now + Math.min(report.retryAfter * 1000, windowMs);
      this.#blockedUntil.set(rateClass, Math.max(this.#blockedUntil.get(rateClass) ?? 0, until));
    }
    if (report.remaining !== undefined && report.resetAt !== undefined && report.resetAt > now) {
      // Requests still in flight besides the answered one may not be in the server's count yet.
      const othersInFlight = Math.max(0, (this.#inFlightByClass.get(rateClass) ?? 0) - 1);
      this.#serverBudget.set(rateClass, {
        remaining: report.remaining - othersInFlight,
        // A reset beyond one window would be a broken header; never let it stall us longer than a window.
        resetAt: Math.min(report.resetAt, now + windowMs),
      });
    }
    // The head of the queue hears at once of a wait that grew.
    if ((this.#queues.get(rateClass)?.size ?? 0) > 0) this.#pump();
  }

  /** Requests open right now (for tests and diagnostics). */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Callers waiting their turn right now (for tests and diagnostics). */
  get waiting(): number {
    let waiting = 0;
    for (const queue of this.#queues.values()) waiting += queue.size;
    return waiting;
  }

  /**
   * Grants turns while it can: of the queue heads whose class allows a send now, the one with the first place, while
   * an in-flight slot is free. A head that must wait for its window gets its class's one timer. Then tells the waits.
   */
  #pump(): void {
    // An abort or a release while turns are handed out is folded into this round.
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        while (this.#grantNext());
      } while (this.#pumpAgain);
    } finally {
      this.#pumping = false;
    }
    this.#tellWaiting();
  }

  /** Grants one turn if one can be granted now; false when none can. Calls nobody's code but the granted call's. */
  #grantNext(): boolean {
    const now = this.#clock.now();
    let first: Waiter | undefined;
    for (const [rateClass, queue] of this.#queues) {
      const head = queue.peek();
      if (head === undefined) {
        this.#cancelTimer(rateClass);
        continue;
      }
      const wait = this.#timeUntilAllowed(rateClass, now);
      if (wait > 0) {
        this.#tellWait(head, now, now + wait);
        this.#armTimer(rateClass, now, now + wait);
      } else if (first === undefined || head.seq < first.seq) {
        first = head;
      }
    }
    if (first === undefined || this.#inFlight >= this.#maxInFlight) return false;
    // A caller's clock ran above (the timers): should it have ended this call, look again.
    if (first.done) return true;
    this.#queueOf(first.rateClass).shift();
    this.#settle(first);
    first.grant(this.#take(first.rateClass, now));
    return true;
  }

  /** Notes a wait to tell a waiter, when it is new or has grown by more than RETELL_MS; told by #tellWaiting. */
  #tellWait(waiter: Waiter, now: number, until: number): void {
    if (waiter.onWait === undefined || until <= now) return;
    if (waiter.toldUntil !== 0 && until <= waiter.toldUntil + RETELL_MS) return;
    waiter.toldUntil = until;
    this.#toTell.push({ waiter, ms: until - now });
  }

  /**
   * Tells the noted waits, once the queues are settled: a hook may abort, or start calls, without catching the pacer
   * half-way. A hook that throws ends its own call, if it is still waiting, and the queue goes on.
   */
  #tellWaiting(): void {
    let endedOne = false;
    while (this.#toTell.length > 0) {
      const told = this.#toTell;
      this.#toTell = [];
      for (const { waiter, ms } of told) {
        if (waiter.done) continue;
        try {
          waiter.onWait!(ms);
        } catch (error) {
          endedOne = this.#giveUp(waiter, error) || endedOne;
        }
      }
    }
    if (endedOne) this.#pump();
  }

  /** Takes a waiter out of its queue and rejects its call; false if it was no longer waiting. */
  #giveUp(waiter: Waiter, reason: unknown): boolean {
    if (waiter.done) return false;
    this.#settle(waiter);
    this.#queueOf(waiter.rateClass).forget();
    waiter.refuse(reason);
    return true;
  }

  /** Marks a waiter as served or gone, and stops watching its signal for it. */
  #settle(waiter: Waiter): void {
    waiter.done = true;
    waiter.stopWatching?.();
  }

  /**
   * When the waiter with `ahead` others before it in its class could go, from the send log alone: each send needs
   * the one `limit` places before it to have left the window. In-flight slots and server reports may add to it.
   */
  #estimatedStart(rateClass: RateClass, ahead: number, now: number): number {
    const { limit } = this.#limits[rateClass];
    const windowMs = this.#windowMs(rateClass) + this.#marginMs;
    const sent = this.#sentLog(rateClass);
    const place = sent.length - limit + ahead;
    const windowsLater = place < sent.length ? 0 : Math.floor((place - sent.length) / limit) + 1;
    const earlier = place - windowsLater * limit;
    const start = (earlier < 0 ? now : (sent[earlier] as number) + windowMs) + windowsLater * windowMs;
    return Math.max(start, now + this.#timeUntilAllowed(rateClass, now));
  }

  #armTimer(rateClass: RateClass, now: number, at: number): void {
    const timer = this.#timers.get(rateClass);
    if (timer !== undefined && timer.at <= at) return;
    timer?.cancel.abort();
    const cancel = new AbortController();
    this.#timers.set(rateClass, { at, cancel });
    this.#clock.sleep(at - now, cancel.signal).then(
      () => {
        if (this.#timers.get(rateClass)?.cancel === cancel) this.#timers.delete(rateClass);
        this.#pump();
      },
      () => undefined,
    );
  }

  #cancelTimer(rateClass: RateClass): void {
    const timer = this.#timers.get(rateClass);
    if (timer === undefined) return;
    this.#timers.delete(rateClass);
    timer.cancel.abort();
  }

  #timeUntilAllowed(rateClass: RateClass, now: number): number {
    const { limit } = this.#limits[rateClass];
    const windowMs = this.#windowMs(rateClass) + this.#marginMs;
    const sent = this.#sentLog(rateClass);
    while (sent.length > 0 && now - (sent[0] as number) >= windowMs) sent.shift();
    let wait = 0;
    if (sent.length >= limit) wait = (sent[sent.length - limit] as number) + windowMs - now;

    // A Retry-After's end gets the margin too: the call that was refused retries at the end itself, and is in the
    // queue, at its own place, by the time the class opens again.
    const blockedUntil = this.#blockedUntil.get(rateClass);
    if (blockedUntil !== undefined) {
      if (blockedUntil + this.#marginMs <= now) this.#blockedUntil.delete(rateClass);
      else wait = Math.max(wait, blockedUntil + this.#marginMs - now);
    }

    const budget = this.#serverBudget.get(rateClass);
    if (budget !== undefined) {
      if (budget.resetAt + this.#marginMs <= now) this.#serverBudget.delete(rateClass);
      else if (budget.remaining <= 0) wait = Math.max(wait, budget.resetAt + this.#marginMs - now);
    }
    return wait;
  }

  #take(rateClass: RateClass, now: number): Release {
    this.#sentLog(rateClass).push(now);
    const budget = this.#serverBudget.get(rateClass);
    if (budget !== undefined) budget.remaining -= 1;
    this.#inFlight += 1;
    this.#inFlightByClass.set(rateClass, (this.#inFlightByClass.get(rateClass) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      this.#inFlightByClass.set(rateClass, (this.#inFlightByClass.get(rateClass) ?? 1) - 1);
      this.#pump();
    };
  }

  #queueOf(rateClass: RateClass): WaiterQueue {
    let queue = this.#queues.get(rateClass);
    if (queue === undefined) {
      queue = new WaiterQueue();
      this.#queues.set(rateClass, queue);
    }
    return queue;
  }

  #sentLog(rateClass: RateClass): number[] {
    let sent = this.#sent.get(rateClass);
    if (sent === undefined) {
      sent = [];
      this.#sent.set(rateClass, sent);
    }
    return sent;
  }

  #windowMs(rateClass: RateClass): number {
    return this.#limits[rateClass].windowSeconds * 1000;
  }
}

/**
 * Waiters in the order of their places: a new call joins at the back in O(1); a retry, whose place is earlier, is put
 * where its place is. A waiter that gave up stays in place, marked done, and is dropped when it reaches the head;
 * `size` counts only the live ones.
 */
class WaiterQueue {
  #items: (Waiter | undefined)[] = [];
  #head = 0;
  #live = 0;

  get size(): number {
    return this.#live;
  }

  /** Puts a waiter in by its place; returns about how many wait before it (the ones that gave up may be counted). */
  insert(waiter: Waiter): number {
    const items = this.#items;
    const last = items[items.length - 1];
    this.#live += 1;
    if (items.length === this.#head || (last as Waiter).seq < waiter.seq) {
      items.push(waiter);
      return this.#live - 1;
    }
    // A retry: the first position whose place is later than its own (places are in order from the head on).
    let low = this.#head;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((items[middle] as Waiter).seq < waiter.seq) low = middle + 1;
      else high = middle;
    }
    items.splice(low, 0, waiter);
    return low - this.#head;
  }

  /** The first live waiter, dropping the ones that gave up before it. */
  peek(): Waiter | undefined {
    while (this.#head < this.#items.length) {
      const waiter = this.#items[this.#head] as Waiter;
      if (!waiter.done) return waiter;
      this.#drop();
    }
    return undefined;
  }

  /** Removes the head that `peek` returned. */
  shift(): void {
    this.#live -= 1;
    this.#drop();
  }

  /** Counts one waiter further down as gone; it is dropped when it reaches the head. */
  forget(): void {
    this.#live -= 1;
  }

  #drop(): void {
    this.#items[this.#head] = undefined;
    this.#head += 1;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}
