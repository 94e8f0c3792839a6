import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../mocks/core/bounded-memo.js';

describe('BoundedMemo', () => {
  it('makes a value once per key while the key is remembered', () => {
    const made: string[] = [];
    const memo = new BoundedMemo<string, string>(4);
    const make = (key: string) => {
      made.push(key);
      return key.toUpperCase();
    };
    expect([memo.get('a', make), memo.get('b', make), memo.get('a', make), memo.get('a', make)]).toEqual(['A', 'B', 'A', 'A']);
    expect(made).toEqual(['a', 'b']);
  });

  it("never holds more than its bound, whatever a stranger's stream of new keys, and still answers each rightly", () => {
    const memo = new BoundedMemo<number, number>(64);
    let largest = 0;
    for (let key = 0; key < 10_000; key++) {
      expect(memo.get(key, (k) => k * 2)).toBe(key * 2);
      largest = Math.max(largest, memo.size);
    }
    expect(largest).toBe(64);
  });

  it('makes a forgotten key again, the same', () => {
    let calls = 0;
    const memo = new BoundedMemo<string, string>(2);
    const make = (key: string) => {
      calls += 1;
      return `${key}!`;
    };
    memo.get('kept', make);
    memo.get('x', make);
    memo.get('y', make); // full: forgets both
    expect(memo.get('kept', make)).toBe('kept!');
    expect(calls).toBe(4);
  });
});
