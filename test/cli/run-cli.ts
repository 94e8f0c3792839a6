import { createSandbox, type Sandbox } from '../../mocks/sandbox.js';
import { startHttpSandbox } from '../../mocks/adapters/http.js';
import type { CliClock } from '../../src/cli/clock.js';
import { main } from '../../src/cli/main.js';
import type { Prompter } from '../../src/cli/prompter.js';
import { fakeIO } from '../support/fake-io.js';

export interface RunOptions {
  tty?: boolean;
  stdin?: string;
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
  const io = fakeIO({ tty: options.tty ?? false, env: { TOPUP_CONFIG_DIR: configDir, ...options.env }, ...(options.stdin === undefined ? {} : { stdin: options.stdin }) });
  const code = await main(args, io, {
    ...(options.prompter ? { prompter: options.prompter } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { code, out: io.out(), err: io.err() };
}

/** A clock whose sleeps return at once and move time forward, so waits finish instantly. */
export function instantClock(start = Date.UTC(2026, 10, 21, 12)): CliClock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      slept.push(ms);
      now += ms;
    },
  };
}

export type AccountName = 'demo' | 'rich' | 'broke' | 'unlinked';

export interface ServedSandbox {
  url: string;
  sandbox: Sandbox;
  token(name: AccountName): string;
  close(): Promise<void>;
}

/** The sandbox over real loopback HTTP, as `topup mock serve` runs it. */
export async function serveSandbox(): Promise<ServedSandbox> {
  const sandbox = await createSandbox({ rateLimit: false });
  const server = await startHttpSandbox(sandbox, { port: 0 });
  return {
    url: server.url,
    sandbox,
    token: (name) => sandbox.fixtures().accounts.find((a) => a.name === name)!.token,
    close: () => server.close(),
  };
}
