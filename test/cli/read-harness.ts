import type { FixtureAccountName } from '../../mocks/store/fixtures.js';
import { afterEach, beforeEach, expect } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { main } from '../../src/cli/main.js';
import { createClient, type TopupClient } from '../../src/client/index.js';
import { CLOCK_START, fakeClock, type FakeClock } from '../support/fake-clock.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';

/** 2026-03-02 10:00:00 UTC: invoice codes and timestamps are the same on every run. */
export const START = CLOCK_START;

/** The `target` of `run`'s --json error envelopes (src/cli/where.ts). */
export const REMOTE_TARGET = { origin: 'http://sandbox.localhost', profile: null, mode: 'production' };

export interface Harness {
  sandbox: Sandbox;
  /** Shared fake time: the sandbox reads it, and the CLI's clock sleeps by moving it forward. */
  time: FakeClock;
  token(name: FixtureAccountName): string;
  /** A library client on the same sandbox, to set up state. */
  client(name: FixtureAccountName): TopupClient;
  /** Runs `topup …` against the sandbox as `account` (remote target: --base-url, TOPUP_TOKEN, deps.fetch). */
  run(args: string[], options?: RunOptions): Promise<RunResult>;
  /** Runs `topup …` on the embedded offline sandbox of this harness's config folder. */
  runEmbedded(args: string[], options?: Omit<RunOptions, 'account'>): Promise<RunResult>;
  /** Every output so far, to check that no token ever appeared. */
  outputs: RunResult[];
  cleanup(): void;
}

export interface RunOptions {
  account?: FixtureAccountName;
  /** Replaces the sandbox's in-process fetch (e.g. to answer 429, or to record requests). */
  fetch?: typeof globalThis.fetch;
  /** Talk to this URL instead of the in-process sandbox, with the global fetch unless `fetch` is given. */
  baseUrl?: string;
  tty?: boolean;
  /** stderr alone is a terminal: a person watching a command whose output is piped. */
  stderrTTY?: boolean;
  /** The terminal's size (test/support/fake-io.ts). */
  columns?: number | undefined;
  rows?: number | undefined;
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  /** Piped to the command's stdin. */
  stdin?: string;
}

export interface RunResult {
  code: number;
  out: string;
  err: string;
}

export async function harness(): Promise<Harness> {
  const time = fakeClock();
  const sandbox = await createSandbox({ now: time.now, rateLimit: false });
  const config = tempConfigDir();
  const token = (name: FixtureAccountName) => sandbox.account(name).token;
  const outputs: RunResult[] = [];
  const exec = async (args: string[], env: Record<string, string>, options: RunOptions): Promise<RunResult> => {
    const io = fakeIO({
      tty: options.tty ?? false,
      ...(options.stderrTTY === undefined ? {} : { stderrTTY: options.stderrTTY }),
      ...(options.columns === undefined ? {} : { columns: options.columns }),
      ...(options.rows === undefined ? {} : { rows: options.rows }),
      env: { TOPUP_CONFIG_DIR: config.dir, ...env, ...options.env },
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    });
    const fetch = options.fetch ?? (options.baseUrl !== undefined ? undefined : sandbox.fetch);
    const code = await main(args, io, { ...(fetch ? { fetch } : {}), clock: time, ...(options.signal ? { signal: options.signal } : {}) });
    const result = { code, out: io.out(), err: io.err() };
    outputs.push(result);
    return result;
  };
  return {
    sandbox,
    time,
    token,
    client: (name) => createClient({ baseUrl: sandbox.baseUrl, token: token(name), fetch: sandbox.fetch, pacing: false }),
    run: (args, options = {}) =>
      exec(
        [...args, '--base-url', options.baseUrl ?? sandbox.baseUrl],
        // The terminal's line on where answers came from is tested in where.test.ts, not with every command's output.
        { TOPUP_TOKEN: token(options.account ?? 'rich'), TOPUP_TEST_QUIET_TARGET: '1' },
        options,
      ),
    runEmbedded: (args, options = {}) => exec(args, {}, options),
    outputs,
    cleanup: config.cleanup,
  };
}

/** Every token of the fixtures, none of which may ever be printed. */
export function allTokens(sandbox: Sandbox): string[] {
  return [...sandbox.fixtures().accounts.map((a) => a.token), ...sandbox.fixtures().revoked_tokens];
}

/**
 * The `rich` account's history, one minute apart:
 * INV…0001 deposit 50,000 paid; INV…0002 order pass 9001 pending; INV…0003 order pass 9004 ref chat-42 paid;
 * INV…0004 VIP 7001 expired; INV…0005 order pass 9101 paid from the balance.
 */
export async function seedRichHistory(h: Harness): Promise<void> {
  const rich = h.client('rich');
  const minute = () => h.time.advance(60_000);
  await h.sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: true });
  minute();
  await rich.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
  minute();
  const paid = await rich.orders.create({
    platform_username: 'BuilderBob',
    place_id: 5001,
    platform_pass_id: 9004,
    client_reference: 'chat-42',
  });
  minute();
  await h.sandbox.control.pay(paid.invoice.invoice_code);
  const vip = await rich.orders.create({
    order_type: 'vip_server',
    platform_username: 'BuilderBob',
    place_id: 5001,
    platform_pass_id: 7001,
  });
  minute();
  await h.sandbox.control.expire(vip.invoice.invoice_code);
  await rich.orders.create(
    { platform_username: 'PixelPiper', place_id: 5002, platform_pass_id: 9101, payment_method: 'balance' },
    { chatUserId: '700000001' },
  );
  minute();
}

/**
 * A fresh harness for every test, and after each one the check that no fixture token reached any output.
 * `receive` gets the new harness before each test, after the optional `seed` step.
 */
export function useHarness(receive: (h: Harness) => void, options: { seed?: (h: Harness) => Promise<void> } = {}): void {
  let current: Harness | undefined;
  beforeEach(async () => {
    current = await harness();
    await options.seed?.(current);
    receive(current);
  });
  afterEach(() => {
    const h = current!;
    for (const { out, err } of h.outputs)
      for (const token of allTokens(h.sandbox)) {
        expect(out).not.toContain(token);
        expect(err).not.toContain(token);
      }
    h.cleanup();
  });
}
