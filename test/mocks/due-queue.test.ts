import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../mocks/store/due-queue.js';

const queueOf = (items: { at: number; name: string }[]) => {
  const queue = new DueQueue<{ at: number; name: string }>((item) => item.at);
  for (const item of items) queue.add(item);
  return queue;
};

const drain = (queue: DueQueue<{ at: number; name: string }>) => {
  const names: string[] = [];
  for (let item = queue.take(); item !== undefined; item = queue.take()) names.push(item.name);
  return names;
};

describe('DueQueue', () => {
  it.each([
    { name: 'in order', items: [1, 2, 3], expected: ['a1', 'b2', 'c3'] },
    { name: 'out of order', items: [30, 10, 20], expected: ['b10', 'c20', 'a30'] },
    { name: 'equal times keep their order', items: [5, 1, 5, 1], expected: ['b1', 'd1', 'a5', 'c5'] },
  ])('takes the earliest first: $name', ({ items, expected }) => {
    const queue = queueOf(items.map((at, i) => ({ at, name: `${'abcd'[i]}${at}` })));
    expect(queue.length).toBe(items.length);
    expect(queue.peek()?.name).toBe(expected[0]);
    expect(drain(queue)).toEqual(expected);
    expect(queue.length).toBe(0);
  });

  it('stays in order across its compaction, with items added after some were taken', () => {
    const queue = queueOf(Array.from({ length: 3000 }, (_, i) => ({ at: i * 2, name: String(i * 2) })));
    for (let i = 0; i < 2000; i++) queue.take();
    queue.add({ at: 4001, name: '4001' });
    queue.add({ at: 0, name: '0' });
    expect(queue.length).toBe(1002);
    expect(
      queue
        .toArray()
        .slice(0, 3)
        .map((item) => item.name),
    ).toEqual(['0', '4000', '4001']);
    const rest = drain(queue).map(Number);
    expect(rest).toEqual([...rest].sort((a, b) => a - b));
  });

  it('reset sorts what it is given', () => {
    const queue = queueOf([{ at: 1, name: 'old' }]);
    queue.reset([
      { at: 9, name: 'late' },
      { at: 3, name: 'soon' },
    ]);
    expect(drain(queue)).toEqual(['soon', 'late']);
  });
});
