import { describe, expect, it } from 'vitest';
import { seedRichHistory, useHarness, type Harness } from './read-harness.js';

let h: Harness;
useHarness(
  (created) => {
    h = created;
  },
  { seed: seedRichHistory },
);

const PENDING = 'INV20260302000002';
const ACCESSIBLE = { TOPUP_ACCESSIBLE: '1' };

/**
 * Anything that moves the cursor or redraws in place: CSI cursor moves and erases (ESC[…A/B/C/D/E/F/G/H/J/K/S/T/f),
 * cursor save/restore and show/hide (ESC[s, ESC[u, ESC[?25l), and a bare carriage return (back to the line's start).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CURSOR_MOVEMENT = /\u001b\[[0-9;?]*[A-HJKSTfsu]|\u001b\[\?25[lh]|\u001b[78]|\r/;

/** Stops a --watch after `refreshes` refreshes (exit 130, as Ctrl-C). */
function stopAfter(refreshes: number): AbortSignal {
  const controller = new AbortController();
  const before = h.time.slept.length;
  h.time.onSleep = (count) => void (count - before >= refreshes && controller.abort());
  return controller.signal;
}

describe('accessible mode (TOPUP_ACCESSIBLE=1) on a terminal: nothing is drawn in place', () => {
  it.each(['balance', 'dashboard'])('%s --watch: redrawn in place without it; with it, each refresh below the last', async (command) => {
    const redrawn = await h.run([command, '--watch', '--no-color'], { tty: true, columns: 100, signal: stopAfter(2) });
    expect(redrawn.code).toBe(130);
    expect(redrawn.out).toMatch(CURSOR_MOVEMENT);

    const accessible = await h.run([command, '--watch', '--no-color'], { tty: true, columns: 100, signal: stopAfter(2), env: ACCESSIBLE });
    expect(accessible.code).toBe(130);
    expect(accessible.out + accessible.err).not.toMatch(CURSOR_MOVEMENT);
    // Both refreshes are there, one after the other, each with its "Updated" line.
    expect(accessible.out.match(/^Updated .*Press Ctrl-C to stop\.$/gm)).toHaveLength(2);
  });

  it('invoices status --wait: a spinner without it; with it, one line per check and a final line', async () => {
    const before = h.time.slept.length;
    h.time.onSleep = async (count) => {
      if (count === before + 1) await h.sandbox.control.pay(PENDING);
    };
    const spinning = await h.run(['invoices', 'status', PENDING, '--wait', '--no-color'], { tty: true });
    expect(spinning.code).toBe(0);
    expect(spinning.err).toMatch(CURSOR_MOVEMENT);
  });

  it('invoices status --wait in accessible mode: lines only', async () => {
    const before = h.time.slept.length;
    h.time.onSleep = async (count) => {
      if (count === before + 1) await h.sandbox.control.pay(PENDING);
    };
    const result = await h.run(['invoices', 'status', PENDING, '--wait', '--no-color'], { tty: true, env: ACCESSIBLE });
    expect(result.code).toBe(0);
    expect(result.out + result.err).not.toMatch(CURSOR_MOVEMENT);
    expect(result.err.split('\n')[0]).toBe(`Waiting for ${PENDING} to be paid…`);
    expect(result.err).toMatch(new RegExp(`^${PENDING} pending.*; next check in 15 s$`, 'm'));
    expect(result.out).toMatch(/paid/);
  });

  it('a table: aligned columns without it; with it, one labelled line per row', async () => {
    const aligned = await h.run(['packages', '--no-color'], { tty: true, columns: 80 });
    expect(aligned.out.split('\n')[0]).toMatch(/^CODE {5}NAME {12}CREDITS/);

    const labelled = await h.run(['packages', '--no-color'], { tty: true, columns: 80, env: ACCESSIBLE });
    expect(labelled.code).toBe(0);
    expect(labelled.out + labelled.err).not.toMatch(CURSOR_MOVEMENT);
    const lines = labelled.out.trimEnd().split('\n');
    expect(lines[0]).toBe('code: CR80, name: 80 Credits, credits: 80, price: Rp 10.000');
    expect(lines).toHaveLength(7);
  });

  it('piped output is unchanged by it: tab-separated rows', async () => {
    const piped = await h.run(['packages'], { env: ACCESSIBLE });
    const plain = await h.run(['packages']);
    expect(piped).toEqual(plain);
    expect(piped.out.split('\n')[0]).toContain('\t');
  });

  it('TOPUP_ACCESSIBLE=0 leaves it off', async () => {
    const result = await h.run(['packages', '--no-color'], { tty: true, columns: 80, env: { TOPUP_ACCESSIBLE: '0' } });
    expect(result.out.split('\n')[0]).toMatch(/^CODE {5}NAME/);
  });

  it.each(['disabled', 'OFF', 'no'])('TOPUP_ACCESSIBLE=%s leaves it off too, as the word does in `config set accessible`', async (word) => {
    const result = await h.run(['packages', '--no-color'], { tty: true, columns: 80, env: { TOPUP_ACCESSIBLE: word } });
    expect(result.out.split('\n')[0]).toMatch(/^CODE {5}NAME/);
  });
});
