import { describe, expect, it, vi } from 'vitest';
import { fakeClock } from '../support/fake-clock.js';
import {
  AuthError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../src/errors.js';
import { backoffDelay, defaultRetryPolicy, isRetryableError, parseRetryAfter, retryDelay, withRetries } from '../../src/client/retry.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['7', 7],
    ['0', 0],
    [' 12 ', 12],
    ['1.5', 1.5],
    ['Wed, 01 Jan 2025 00:00:30 GMT', 30],
    ['Wed, 01 Jan 2025 00:02:00 GMT', 120],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
    [null, undefined],
    [undefined, undefined],
    ['', undefined],
    ['-3', undefined],
    ['soon', undefined],
    ['12abc', undefined],
  ])('%j → %j seconds', (header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });
});

describe('backoffDelay (full jitter)', () => {
  const policy = { baseDelay: 500, maxDelay: 8_000 };
  it.each([
    [0, 0, 0],
    [0, 0.999, 499],
    [1, 0.5, 500],
    [2, 0.5, 1_000],
    [3, 0.999, 3_996],
    [4, 0.999, 7_992],
    [10, 0.5, 4_000],
    [30, 0.999, 7_992],
  ])('retry %i with random %d → %i ms', (retry, random, expected) => {
    expect(backoffDelay(retry, random, policy)).toBe(expected);
  });
});

describe('isRetryableError', () => {
  it.each([
    [new ConnectionError('x'), true],
    [new TimeoutError('x'), true],
    [new RateLimitError('x', { status: 429 }), true],
    [new ServerError('x', { status: 502 }), true],
    [new ServerError('x', { status: 503 }), true],
    [new ServerError('x', { status: 504 }), true],
    [new ServerError('x', { status: 500 }), false],
    [new ServerError('x', { status: 501 }), false],
    [new AuthError('x', { status: 401 }), false],
    [new PermissionError('x', { status: 403 }), false],
    [new NotFoundError('x', { status: 404 }), false],
    [new ConflictError('x', { status: 409 }), false],
    [new ValidationError('x', { status: 422 }), false],
    [new Error('x'), false],
    [new DOMException('aborted', 'AbortError'), false],
  ])('%o → %s', (error, expected) => {
    expect(isRetryableError(error)).toBe(expected);
  });
});

describe('retryDelay', () => {
  const policy = { ...defaultRetryPolicy, maxRetries: 4, maxRetryTime: 60_000 };
  const rateLimited = (retryAfter?: number) => new RateLimitError('x', { status: 429, retryAfter });
  it.each([
    { name: 'Retry-After wins over backoff', error: rateLimited(7), retry: 0, elapsed: 0, expected: 7_000 },
    { name: 'fractional Retry-After rounds up to whole ms', error: rateLimited(0.0015), retry: 0, elapsed: 0, expected: 2 },
    { name: 'Retry-After 0 retries at once', error: rateLimited(0), retry: 0, elapsed: 0, expected: 0 },
    { name: 'no Retry-After: backoff', error: rateLimited(), retry: 2, elapsed: 0, expected: 1_000 },
    { name: 'Retry-After past the time budget gives up', error: rateLimited(61), retry: 0, elapsed: 0, expected: undefined },
    { name: 'Retry-After that fits exactly is honoured', error: rateLimited(10), retry: 0, elapsed: 50_000, expected: 10_000 },
    { name: 'Retry-After beyond what is left gives up', error: rateLimited(10), retry: 0, elapsed: 50_001, expected: undefined },
    { name: 'last retry allowed', error: new ConnectionError('x'), retry: 3, elapsed: 0, expected: 2_000 },
    { name: 'retries exhausted', error: new ConnectionError('x'), retry: 4, elapsed: 0, expected: undefined },
    { name: '503 with Retry-After', error: new ServerError('x', { status: 503, retryAfter: 2 }), retry: 0, elapsed: 0, expected: 2_000 },
    { name: '500 never', error: new ServerError('x', { status: 500 }), retry: 0, elapsed: 0, expected: undefined },
    { name: '422 never', error: new ValidationError('x', { status: 422 }), retry: 0, elapsed: 0, expected: undefined },
  ])('$name', ({ error, retry, elapsed, expected }) => {
    expect(retryDelay({ error, retry, elapsed, random: 0.5 }, policy)).toBe(expected);
  });
});

describe('withRetries', () => {
  it('retries a retryable failure up to maxRetries and then throws the last error', async () => {
    const clock = fakeClock({ start: 0 }); // from 0: its reading is the time elapsed; random() is 0.5
    const attempt = vi.fn(async (retry: number) => {
      throw new ConnectionError(`attempt ${retry}`);
    });
    await expect(withRetries(attempt, { retryable: true, policy: defaultRetryPolicy, clock })).rejects.toThrow('attempt 4');
    expect(attempt).toHaveBeenCalledTimes(5);
    expect(clock.slept).toEqual([250, 500, 1_000, 2_000]);
  });

  it('makes exactly one attempt when the request is not retryable', async () => {
    const clock = fakeClock({ start: 0 });
    const attempt = vi.fn(async () => {
      throw new ConnectionError('down');
    });
    await expect(withRetries(attempt, { retryable: false, policy: defaultRetryPolicy, clock })).rejects.toBeInstanceOf(ConnectionError);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('stops when the total time would pass maxRetryTime', async () => {
    const clock = fakeClock({ start: 0 });
    const attempt = vi.fn(async () => {
      throw new RateLimitError('slow down', { status: 429, retryAfter: 20 });
    });
    const policy = { ...defaultRetryPolicy, maxRetries: 10, maxRetryTime: 45_000 };
    await expect(withRetries(attempt, { retryable: true, policy, clock })).rejects.toBeInstanceOf(RateLimitError);
    expect(clock.slept).toEqual([20_000, 20_000]);
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('returns the first success', async () => {
    const clock = fakeClock({ start: 0 });
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls += 1;
        if (calls < 3) throw new ServerError('busy', { status: 503 });
        return 'done';
      },
      { retryable: true, policy: defaultRetryPolicy, clock },
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('does not retry after the signal aborted', async () => {
    const clock = fakeClock({ start: 0 });
    const controller = new AbortController();
    const attempt = vi.fn(async () => {
      controller.abort();
      throw new ConnectionError('down');
    });
    await expect(
      withRetries(attempt, { retryable: true, policy: defaultRetryPolicy, clock, signal: controller.signal }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(attempt).toHaveBeenCalledTimes(1);
  });
});
