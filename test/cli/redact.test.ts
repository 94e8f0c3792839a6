import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { redactSecrets } from '../../src/cli/io/redact.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';

const RICH = 'topup_live_rich_9Xk2mQ7vLp3RtY8wZc4bNs6d';

describe('redactSecrets', () => {
  it.each([
    [`error: unknown option '--tokn=${RICH}'`, `error: unknown option '--tokn=…'`],
    [`error: unknown command '${RICH}'`, `error: unknown command 'topup_live_…Ns6d'`],
    ['Invoice INV1 was not found.', 'Invoice INV1 was not found.'],
    // A hyphen inside a word is no option: the examples of `--faults` stay readable.
    ['Examples: drop-after=20%, 503/retry-after=1', 'Examples: drop-after=20%, 503/retry-after=1'],
    ['secret s3cr3t-value-123 leaked', 'secret …-123 leaked'],
    // commander echoes what was typed after -H: credentials in it are cut whatever their shape.
    [`error: bad header 'Authorization: Basic dXNlcjpzM2NyM3Q='`, `error: bad header 'Authorization: Basic [redacted]'`],
    [`error: bad header 'Authorization: Bearer sk_live_51HxYz0abcdef'`, `error: bad header 'Authorization: Bearer …cdef'`],
    [`error: too many arguments: 'Bearer sk_live_51HxYz0abcdef'`, `error: too many arguments: 'Bearer …cdef'`],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input, ['s3cr3t-value-123'])).toBe(expected);
  });
});

describe('a mistyped token on the command line never reaches the terminal', () => {
  it.each([[['packages', `--tokn=${RICH}`]], [[RICH]], [['orders', 'list', `--sttus=${RICH}`]]])('%j', async (args) => {
    const { dir, cleanup } = tempConfigDir();
    try {
      const io = fakeIO({ env: { TOPUP_CONFIG_DIR: dir } });
      expect(await main(args, io)).toBe(2);
      expect(io.err()).not.toContain(RICH);
      expect(io.out()).not.toContain(RICH);
      expect(io.err()).toMatch(/^Error: unknown/m);
    } finally {
      cleanup();
    }
  });
});
