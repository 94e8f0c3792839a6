import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import type { FaultRule } from '../../mocks/core/fault-config.js';
import { LONG_WAIT_MS } from '../../src/cli/context.js';
import { tempConfigDir } from '../support/fake-io.js';
import { fakeClock } from '../support/fake-clock.js';
import { runCli } from './run-cli.js';

/** Seconds the sandbox asks to wait: one more than the shortest wait the CLI announces. */
const RETRY_AFTER = LONG_WAIT_MS / 1000 + 1;

/** A sandbox that answers every balance read with 429 (or 503) and Retry-After, and the CLI pointed at it. */
async function rateLimitedBalance(args: string[], tty: boolean, status: 429 | 503 = 429) {
  const rule: FaultRule =
    status === 429
      ? { kind: 'rate_limit', rate: 1, retry_after: RETRY_AFTER, routes: ['getBalance'] }
      : { kind: 'error', status, rate: 1, retry_after: RETRY_AFTER, routes: ['getBalance'] };
  const sandbox = await createSandbox({ faults: { seed: 1, rules: [rule] } });
  const token = sandbox.account('demo').token;
  const config = tempConfigDir();
  try {
    return await runCli(config.dir, args, {
      tty,
      fetch: sandbox.fetch,
      clock: fakeClock(),
      env: { TOPUP_BASE_URL: sandbox.baseUrl, TOPUP_TOKEN: token },
    });
  } finally {
    config.cleanup();
  }
}

describe('waits the client makes are never silent', () => {
  it.each([
    [429, 6, '429: rate limited'],
    [503, 7, '503: unavailable'],
  ] as const)(
    'on a terminal, a Retry-After over LONG_WAIT_MS (2 s) is announced on stderr before each wait, with its status (%i)',
    async (status, exitCode, said) => {
      const result = await rateLimitedBalance(['balance', '--no-color'], true, status);
      expect(result.code).toBe(exitCode);
      const notices = result.err.split('\n').filter((line) => line.startsWith('The server asked to wait') && line.includes('retrying in'));
      expect(notices.length).toBeGreaterThan(0);
      expect(new Set(notices)).toEqual(new Set([`The server asked to wait (${said}); retrying in ${RETRY_AFTER} s.`]));
    },
  );

  it("piped, stderr has only the error and the wait it asked for: a script's log is not filled with progress", async () => {
    const result = await rateLimitedBalance(['balance'], false);
    expect(result.code).toBe(6);
    expect(result.err).not.toContain('retrying in');
    expect(result.err.trim().split('\n')).toEqual([
      expect.stringMatching(/^Error: /),
      `The server asked to wait ${RETRY_AFTER} seconds before the next request (Retry-After).`,
    ]);
  });

  it('with --json, the error envelope says the wait in seconds', async () => {
    const result = await rateLimitedBalance(['balance', '--json'], false);
    expect(result.code).toBe(6);
    const envelope = JSON.parse(result.err.trim().split('\n').at(-1)!) as { error: Record<string, unknown> };
    expect(envelope.error).toMatchObject({ kind: 'rate_limited', retry_after: RETRY_AFTER });
  });

  it("--debug shows each request, each answer's status and time, and each wait", async () => {
    const result = await rateLimitedBalance(['balance', '--debug'], false);
    const lines = result.err.split('\n');
    expect(lines.filter((l) => l.startsWith('> GET http://sandbox.localhost/api/v1/me/balance ')).length).toBeGreaterThan(1);
    expect(lines.filter((l) => /^< 429 GET http:\/\/sandbox\.localhost\/api\/v1\/me\/balance \(\d+ ms\)$/.test(l)).length).toBeGreaterThan(
      1,
    );
    expect(lines).toContain(`… waiting ${RETRY_AFTER * 1000} ms (retry-after) before GET /api/v1/me/balance`);
  });
});
