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
  /** Piped to the command's stdin: its text, or a stream of it (a pipe whose writer has not ended). */
  stdin?: string | AsyncIterable<Buffer | string>;
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
  const remote = async (args: string[], options: RunOptions): Promise<RunResult> => {
    const baseUrl = options.baseUrl ?? sandbox.baseUrl;
    const given = options.fetch ?? (options.baseUrl !== undefined ? undefined : sandbox.fetch);
    /** Whether the run asked the shop's API anything (then a terminal is told where the answers came from). */
    let asked = false;
    const counted: typeof globalThis.fetch | undefined =
      given &&
      ((input, init) => {
        // The sandbox's control API (topup mock …) is no shop's server: those commands say nothing of where.
        asked ||= !(input instanceof Request ? input.url : String(input)).includes('/__sandbox');
        return given(input, init);
      });
    const result = await exec(
      [...args, '--base-url', baseUrl],
      { TOPUP_TOKEN: token(options.account ?? 'rich') },
      {
        ...options,
        ...(counted ? { fetch: counted } : {}),
      },
    );
    const told = asked && (options.stderrTTY ?? options.tty ?? false);
    return { ...result, err: withoutWhere(result.err, baseUrl, told) };
  };
  return {
    sandbox,
    time,
    token,
    client: (name) => createClient({ baseUrl: sandbox.baseUrl, token: token(name), fetch: sandbox.fetch, pacing: false }),
    run: (args, options = {}) => remote(args, options),
    runEmbedded: (args, options = {}) => exec(args, {}, options),
    outputs,
    cleanup: config.cleanup,
  };
}

/**
 * `err` without the lines a terminal run says first about where its answers come from (src/cli/where.ts): the
 * harness's server is named by --base-url (`→ origin`), and a production token on http is marked as answered by a test
 * server. Checked here for every run (`told`: stderr is a terminal and a request was sent: the line is there, once;
 * else it is not), then taken out, so that each test reads its own command's stderr; where.test.ts tests the wording.
 */
export function withoutWhere(err: string, baseUrl: string, told: boolean): string {
  const origin = new URL(baseUrl).origin;
  const plain = err.replace(ANSI_COLOUR, '');
  const count = (pattern: RegExp) => plain.match(new RegExp(pattern.source, 'gm'))?.length ?? 0;
  const notice = new RegExp(`^→ ${escaped(origin)}\\n`, 'm');
  const warning =
    /^Warning: a (?:production token|token of unknown mode) answered by a test server at \S+ — this is not the real shop\.\n/m;
  expect(count(notice), `→ ${origin} in ${err}`).toBe(told ? 1 : 0);
  expect(count(warning), `the test-server warning in ${err}`).toBeLessThanOrEqual(told ? 1 : 0);
  if (!told) return err;
  // Coloured, the notice is dim and the warning yellow: taken out with their colour codes.
  const colour = '(?:\u001b\\[[0-9;]*m)*';
  return err
    .replace(new RegExp(`^${colour}${notice.source.slice(1, -2)}${colour}\\n`, 'm'), '')
    .replace(new RegExp(`^${colour}${warning.source.slice(1, -2)}${colour}\\n`, 'm'), '');
}

// eslint-disable-next-line no-control-regex -- matching colour codes is the point
const ANSI_COLOUR = /\u001b\[[0-9;]*m/g;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
