import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { CliContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { buildProgram } from '../../src/cli/program.js';
import { fakeIO } from '../support/fake-io.js';
import { EMBEDDED_NOTICE, expectUsageError } from '../support/cli-assertions.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli, serveSandbox, type RunOptions, type ServedSandbox } from './run-cli.js';

/**
 * Every control move from the terminal (issue 22): `topup mock faults`, `clock`, `requests` and `reset --keep`, on a
 * sandbox served over a real socket and on the embedded one, as people (piped text) and scripts (--json) see them.
 */
let config: { dir: string; cleanup: () => void };
let served: ServedSandbox;
beforeAll(async () => {
  served = await serveSandbox();
});
afterAll(() => served.close());
beforeEach(async () => {
  config = tempConfigDir();
  await served.sandbox.reset();
});
afterEach(() => config.cleanup());

const topup = (args: string[], options: RunOptions = {}) => runCli(config.dir, args, options);
const remote = (args: string[]) => topup([...args, '--base-url', served.url]);
const json = (result: { code: number; out: string; err: string }) => {
  expect(result, result.err).toMatchObject({ code: 0 });
  return JSON.parse(result.out);
};
/** The served sandbox's own API, as a bot calls it. */
const balance = () =>
  served.sandbox.fetch(`${served.sandbox.baseUrl}/api/v1/me/balance`, { headers: { authorization: `Bearer ${served.token('rich')}` } });

describe('topup mock faults, on a served sandbox', () => {
  it('adds a rule by flags, lists it in the --faults form, and the sandbox fires it', async () => {
    const added = json(await remote(['mock', 'faults', 'add', '--route', 'getBalance', '--status', '503', '--times', '1', '--json']));
    expect(added.rules).toEqual([{ kind: 'error', status: 503, times: 1, routes: ['getBalance'] }]);
    expect((await balance()).status).toBe(503);
    expect((await balance()).status).toBe(200);
    const listed = await remote(['mock', 'faults']);
    expect(listed).toMatchObject({ code: 0, out: '1\t503/times=1@getBalance\t2\t1\n' });
    expect(listed.err).toBe('Fault seed 0; 2 requests decided since the rules were set.\n');
  });

  it('adds after the rules there, which keep their counts; SPEC and flags mean the same', async () => {
    expect((await remote(['mock', 'faults', 'add', '503/retry-after=1/times=1@getBalance'])).code).toBe(0);
    expect((await balance()).status).toBe(503);
    expect((await remote(['mock', 'faults', 'add', '--latency', '5-50ms', '--rate', '25%'])).code).toBe(0);
    expect((await remote(['mock', 'faults', 'add', '--drop', 'after', '--route', 'createOrder', '--after', '2'])).code).toBe(0);
    expect((await remote(['mock', 'faults', 'add', '--status', '429', '--retry-after', '2', '--rate', '0.1'])).code).toBe(0);
    expect((await remote(['mock', 'faults', 'list'])).out).toBe(
      [
        '1\t503/retry-after=1/times=1@getBalance\t1\t1',
        '2\tlatency=5-50ms/25%\t0\t0',
        '3\tdrop-after/after=2@createOrder\t0\t0',
        '4\t429=10%/retry-after=2\t0\t0',
        '',
      ].join('\n'),
    );
    // The first rule stayed spent.
    expect((await balance()).status).not.toBe(503);
  });

  it('clears every rule', async () => {
    await remote(['mock', 'faults', 'add', '--status', '500', '--rate', '100%']);
    expect(json(await remote(['mock', 'faults', 'clear', '--json'])).rules).toEqual([]);
    expect(served.sandbox.faults.config.rules).toEqual([]);
    expect((await balance()).status).toBe(200);
  });

  it.each([
    { args: ['--status', '503'], message: /^Error: Say how often it fires: --rate 10%, --times N or --after N\.$/m },
    { args: [], message: /^Error: Say what the fault does: --status 503, --drop after or --latency 200ms/m },
    { args: ['--status', '503', '--drop', 'after', '--times', '1'], message: /A fault does one thing/ },
    { args: ['503/times=1', '--route', 'createOrder'], message: /either as SPEC or with flags, not both/ },
    { args: ['--status', '404', '--times', '1'], message: /Invalid fault '404\/times=1'\. Examples: / },
    {
      args: ['--status', '503', '--times', '1', '--route', 'create_order'],
      message: /names no route 'create_order' \(did you mean createOrder\?\)/,
    },
    { args: ['--status', '503', '--rate', '1/times=1'], message: /rate is a share: 10% or 0\.1\./ },
    { args: ['--route', 'a@b', '--status', '503', '--times', '1'], message: /A route is an endpoint id/ },
  ])('refuses $args as a usage error, sending nothing', async ({ args, message }) => {
    expectUsageError(await remote(['mock', 'faults', 'add', ...args]), message);
    expect(served.sandbox.faults.config.rules).toEqual([]);
  });
});

describe('topup mock faults, on the embedded sandbox', () => {
  it('lists none, and refuses to add one that would fire on nothing', async () => {
    const listed = await topup(['mock', 'faults', '--json']);
    expect(json(listed)).toMatchObject({ seed: 0, rules: [], stats: { requests: 0 } });
    expect(listed.err).toBe(EMBEDDED_NOTICE);
    const added = await topup(['mock', 'faults', 'add', '--status', '503', '--times', '1']);
    expect(added.code).toBe(2);
    expect(added.err).toContain('The embedded sandbox lives only while one command runs, so a fault would fire on nothing');
  });
});

describe('topup mock clock', () => {
  it('moves a served sandbox on and shows it', async () => {
    const before = served.sandbox.now();
    const moved = json(await remote(['mock', 'clock', 'advance', '1h', '--json']));
    expect(served.sandbox.now() - before).toBeGreaterThanOrEqual(3_600_000);
    expect(moved).toHaveProperty('next_move_at', null);
    const shown = await remote(['mock', 'clock']);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^now: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\noffset: 1 h ahead of this machine\nnext move: none due\n$/);
  });

  it("moves the embedded sandbox's clock, kept in its state from command to command", async () => {
    expect((await topup(['mock', 'clock', 'advance', '90m'])).code).toBe(0);
    const shown = json(await topup(['mock', 'clock', 'show', '--json']));
    expect(Math.round((shown.offset_ms as number) / 60_000)).toBe(90);
  });

  it.each([['soon'], ['-1h']])('refuses the duration %s as a usage error', async (duration) => {
    expectUsageError(await topup(['mock', 'clock', 'advance', '--', duration]), /duration must be a duration such as 500ms, 5s or 2m/);
  });
});

describe('topup mock requests', () => {
  it("lists and clears a served sandbox's journal", async () => {
    await balance();
    const listed = await remote(['mock', 'requests', '--json']);
    expect(
      listed.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).path),
    ).toEqual(['/api/v1/me/balance']);
    expect(json(await remote(['mock', 'requests', 'clear', '--json']))).toEqual({ cleared: true });
    expect(served.sandbox.requests.count()).toBe(0);
    expect((await remote(['mock', 'requests', 'list'])).out).toBe('');
  });

  it('takes list’s filters without naming list, and refuses what list would refuse', async () => {
    await balance();
    expect((await remote(['orders', 'show', 'INV404'])).code).not.toBe(0);
    expect(served.sandbox.requests.list().some((entry) => (entry.status ?? 0) >= 400)).toBe(true);
    for (const args of [
      ['mock', 'requests', '--filter-status', '2xx'],
      ['mock', 'requests', 'list', '--filter-status', '2xx'],
    ]) {
      const result = await remote([...args, '--json']);
      expect(result.code, args.join(' ')).toBe(0);
      const statuses = result.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).status as number);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status >= 200 && status < 300)).toBe(true);
    }
    // --jq is set up once, though the group hands its flags on to list.
    const paths = await remote(['mock', 'requests', '--filter-status', '2xx', '--jq', '.path']);
    expect(paths.code, paths.err).toBe(0);
    expect(paths.out).toContain('/api/v1/me/balance\n');
    const limited = await remote(['mock', 'requests', '--limit', '1', '--json']);
    expect(limited.out.trim().split('\n')).toHaveLength(1);
    const bogus = await remote(['mock', 'requests', '--bogus']);
    expect([bogus.code, bogus.out]).toEqual([2, '']);
    expect(bogus.err).toContain("unknown option '--bogus'");
    const typo = await remote(['mock', 'requests', 'lst']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('(Did you mean list?)');
  });

  it("clears the embedded sandbox's log; ids go on from the last one", async () => {
    expect((await topup(['balance'])).code).toBe(0);
    const first = JSON.parse((await topup(['mock', 'requests', 'list', '--json'])).out.trim());
    expect(first.path).toBe('/api/v1/me/balance');
    expect((await topup(['mock', 'requests', 'clear'])).code).toBe(0);
    expect((await topup(['mock', 'requests', '--json'])).out).toBe('');
    expect((await topup(['balance'])).code).toBe(0);
    const next = (await topup(['mock', 'requests', '--json'])).out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(next.map((e) => [e.id, e.path])).toEqual([[first.id + 1, '/api/v1/me/balance']]);
  });
});

describe('topup mock reset', () => {
  it('after faults and requests leaves none of either on a served sandbox', async () => {
    await remote(['mock', 'faults', 'add', '--status', '500', '--rate', '100%', '--route', 'getBalance']);
    expect((await balance()).status).toBe(500);
    await remote(['mock', 'clock', 'advance', '1h']);
    expect(json(await remote(['mock', 'reset', '--json']))).toEqual({ reset: true, kept: [] });
    expect(served.sandbox.faults.config.rules).toEqual([]);
    expect(served.sandbox.requests.count()).toBe(0);
    expect((await remote(['mock', 'requests'])).out).toBe('');
    expect((await balance()).status).toBe(200);
  });

  it('--keep faults,requests keeps both', async () => {
    await remote(['mock', 'faults', 'add', '--status', '500', '--rate', '100%', '--route', 'getBalance']);
    await balance();
    expect(json(await remote(['mock', 'reset', '--keep', 'faults,requests', '--json']))).toEqual({
      reset: true,
      kept: ['faults', 'requests'],
    });
    expect(served.sandbox.faults.config.rules).toHaveLength(1);
    expect(served.sandbox.requests.list().map((e) => e.path)).toEqual(['/__sandbox/faults', '/api/v1/me/balance', '/__sandbox/reset']);
  });

  it('leaves the embedded sandbox with its seed and an empty request log, unless told to keep them', async () => {
    const inv = (await topup(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'])).out.trim();
    expect(inv).toMatch(/^INV\d+$/);
    expect((await topup(['mock', 'reset', '--keep', 'requests'])).code).toBe(0);
    expect((await topup(['mock', 'requests', '--json'])).out).toContain('/api/v1/me/orders');
    expect((await topup(['mock', 'pay', inv])).code).toBe(1);
    expect((await topup(['mock', 'reset'])).code).toBe(0);
    expect((await topup(['mock', 'requests', '--json'])).out).toBe('');
  });

  it('refuses a part it cannot keep as a usage error', async () => {
    expectUsageError(await remote(['mock', 'reset', '--keep', 'faults,clock']), /A reset can keep state, faults, requests; not 'clock'\./);
  });
});

describe('topup mock serve --seed --faults, then reset', () => {
  it('goes back to the seed state and the starting faults, whatever was paid or added since', async () => {
    const deposit = (await topup(['mock', 'deposit', '50000'])).out.trim();
    const seedFile = join(config.dir, 'seed.json');
    expect((await topup(['mock', 'state', 'save', seedFile])).code).toBe(0);
    const controller = new AbortController();
    const io = fakeIO({ env: { TOPUP_CONFIG_DIR: config.dir } });
    const args = ['--json', 'mock', 'serve', '--port', '0', '--seed', seedFile, '--faults', '503/times=1@getBalance'];
    const running = main(args, io, { signal: controller.signal });
    try {
      const url = (await firstJsonLine(io.out)).url as string;
      const at = (more: string[]) => topup([...more, '--base-url', url]);
      expect((await at(['mock', 'pay', deposit])).code).toBe(0);
      expect((await at(['mock', 'faults', 'add', '--status', '500', '--rate', '100%'])).code).toBe(0);
      expect((await at(['mock', 'reset'])).code).toBe(0);
      expect((await at(['mock', 'faults'])).out).toBe('1\t503/times=1@getBalance\t0\t0\n');
      const invoice = await (await fetch(`${url}/__sandbox/invoices/${deposit}`)).json();
      expect(invoice.data.invoice.payment_status).toBe('pending');
    } finally {
      controller.abort();
      expect(await running).toBe(0);
    }
  });
});

/** The first line `mock serve --json` prints (its URL and settings), within 2 s. */
async function firstJsonLine(read: () => string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const line = read().split('\n')[0];
    if (line) return JSON.parse(line) as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('mock serve printed nothing');
}

describe('a mistyped subcommand under mock', () => {
  it.each([
    [['mock', 'faultz'], 'faults'],
    [['mock', 'faults', 'lst'], 'list'],
    [['mock', 'clock', 'shwo'], 'show'],
    [['mock', 'requests', 'clr'], 'clear'],
    [['mock', 'rest'], 'reset'],
  ])('%j suggests %s', async (args, nearest) => {
    const result = await topup(args);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toBe(`Error: unknown command '${args.at(-1)}'\n(Did you mean ${nearest}?)\n`);
  });
});

describe('a mistyped subcommand anywhere in the CLI', () => {
  // Every group, with the typo of its first subcommand that drops its last letter (`lis` for `list`).
  const groups: { path: string[]; typo: string; nearest: string }[] = [];
  const walk = (command: Command, path: string[]) => {
    const subcommands = command.commands.filter((sub) => sub.name() !== 'help');
    const first = subcommands.find((sub) => sub.name().length >= 4);
    if (first !== undefined && path.length > 0) groups.push({ path, typo: first.name().slice(0, -1), nearest: first.name() });
    for (const sub of subcommands) walk(sub, [...path, sub.name()]);
  };
  walk(buildProgram(new CliContext(fakeIO())), []);

  it('finds the groups', () => {
    expect(groups.map((g) => g.path.join(' '))).toEqual(
      expect.arrayContaining(['mock', 'mock faults', 'mock clock', 'mock requests', 'orders']),
    );
  });

  it.each(groups)('$path with $typo suggests $nearest', async ({ path, typo, nearest }) => {
    const result = await topup([...path, typo]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`Error: unknown command '${typo}'\n(Did you mean ${nearest}?)\n`);
  });
});
