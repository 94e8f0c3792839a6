import { describe, expect, it } from 'vitest';
import { hintCommand } from '../../src/cli/hint-command.js';
import type { GlobalOptions } from '../../src/cli/context.js';

const globals = (given: Partial<GlobalOptions>) => ({
  globals: { json: false, mock: false, color: true, input: true, debug: false, ...given },
});

describe('hintCommand: a command to paste acts where this run did', () => {
  it.each([
    [{}, 'topup mock pay INV1'],
    [{ mock: true }, 'topup --mock mock pay INV1'],
    [{ profile: 'shop' }, 'topup --profile shop mock pay INV1'],
    [{ profile: "bob's shop" }, "topup --profile 'bob'\\''s shop' mock pay INV1"],
    [{ baseUrl: 'http://127.0.0.1:4010' }, 'topup --base-url http://127.0.0.1:4010 mock pay INV1'],
    [
      { profile: 'p', baseUrl: 'https://shop.example.com/api?x=1&y=2' },
      "topup --profile p --base-url 'https://shop.example.com/api?x=1&y=2' mock pay INV1",
    ],
  ])('%j', (given, command) => {
    expect(hintCommand(globals(given), 'mock pay INV1')).toBe(command);
  });

  it('never carries a control character to the terminal (an invoice code is the server’s text)', () => {
    const shown = hintCommand(globals({}), 'mock pay INV\u001b]0;x\u0007');
    expect([...shown].filter((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) < 0xa0))).toEqual([]);
    expect(shown).toContain('mock pay INV');
  });
});
