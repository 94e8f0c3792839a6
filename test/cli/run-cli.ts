import type { FixtureAccountName } from '../../mocks/store/fixtures.js';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { REVOKED_TOKEN } from '../../mocks/store/seed.js';
import { startHttpSandbox } from '../../mocks/adapters/http.js';
import type { CliClock } from '../../src/cli/clock.js';
import { main } from '../../src/cli/main.js';
import type { Prompter } from '../../src/cli/prompter.js';
import { fakeIO, tempConfigDir, type FakeIOOptions } from '../support/fake-io.js';

export interface RunOptions {
  tty?: boolean;
  /** stderr alone is a terminal: a person watching a command whose output is piped. */
  stderrTTY?: boolean;
  /** false: NO_COLOR is set, for a test of the words a terminal shows rather than their colour. */
  color?: false;
  /** The terminal's size (test/support/fake-io.ts). */
  columns?: number | undefined;
  rows?: number | undefined;
  stdin?: FakeIOOptions['stdin'];
  env?: Record<string, string | undefined>;
  prompter?: Prompter;
  clock?: CliClock;
  signal?: AbortSignal;
  /** Replaces the global fetch for remote targets. */
  fetch?: typeof globalThis.fetch;
}

export interface RunResult {
  code: number;
  out: string;
  err: string;
}

/** One CLI run in-process, with the config folder `configDir` and otherwise an empty environment. */
export async function runCli(configDir: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const io = fakeIO({
    tty: options.tty ?? false,
    ...(options.stderrTTY === undefined ? {} : { stderrTTY: options.stderrTTY }),
    env: { TOPUP_CONFIG_DIR: configDir, ...(options.color === false ? { NO_COLOR: '1' } : {}), ...options.env },
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.columns === undefined ? {} : { columns: options.columns }),
    ...(options.rows === undefined ? {} : { rows: options.rows }),
  });
  const code = await main(args, io, {
    ...(options.prompter ? { prompter: options.prompter } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { code, out: io.out(), err: io.err() };
}

export interface ServedSandbox {
  url: string;
  sandbox: Sandbox;
  token(name: FixtureAccountName): string;
  close(): Promise<void>;
}

/** The sandbox over real loopback HTTP, as `topup mock serve` runs it. */
export async function serveSandbox(): Promise<ServedSandbox> {
  const sandbox = await createSandbox({ rateLimit: false });
  const server = await startHttpSandbox(sandbox, { port: 0 });
  return {
    url: server.url,
    sandbox,
    token: (name) => sandbox.account(name).token,
    close: () => server.close(),
  };
}

export interface ServedCliContext {
  served: ServedSandbox;
  configDir: string;
}

/**
 * One served sandbox for the file, a fresh config folder for every test (and, with `reset`, a fresh sandbox
 * state), and after each test the check that no token of any fixture account showed in any run's output.
 * Returns the runner; `receive` gets the served sandbox and the test's config folder before each test.
 */
export function useServedCli(
  receive: (context: ServedCliContext) => void,
  options: { reset?: boolean } = {},
): (args: string[], options?: RunOptions) => Promise<RunResult> {
  let served: ServedSandbox;
  let config: { dir: string; cleanup: () => void };
  let outputs: RunResult[] = [];
  beforeAll(async () => {
    served = await serveSandbox();
  });
  afterAll(() => served.close());
  beforeEach(async () => {
    config = tempConfigDir();
    outputs = [];
    if (options.reset) await served.sandbox.control.reset();
    receive({ served, configDir: config.dir });
  });
  afterEach(() => {
    const secrets = [...served.sandbox.fixtures().accounts.map((a) => a.token), REVOKED_TOKEN];
    for (const { out, err } of outputs)
      for (const secret of secrets) {
        expect(out).not.toContain(secret);
        expect(err).not.toContain(secret);
      }
    config.cleanup();
  });
  return async (args, runOptions = {}) => {
    const result = await runCli(config.dir, args, runOptions);
    outputs.push(result);
    return result;
  };
}
