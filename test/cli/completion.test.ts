import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { complete, readWords, type Lookups } from '../../src/cli/completion/complete.js';
import { renderCompletion } from '../../src/cli/io/completion-script.js';
import { main } from '../../src/cli/main.js';
import { buildProgram } from '../../src/cli/program.js';
import { CliContext } from '../../src/cli/context.js';
import { LEAN, expectUsageError } from '../support/cli-assertions.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { serveSandbox, type ServedSandbox } from './run-cli.js';

let config: { dir: string; cleanup: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

async function topup(args: string[], options: { tty?: boolean; env?: Record<string, string> } = {}) {
  const io = fakeIO({ tty: options.tty ?? false, env: { TOPUP_CONFIG_DIR: config.dir, ...options.env } });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** `topup __complete …words`, in-process: the candidate values (descriptions dropped) and the directive. */
async function offered(words: string[], options: { tty?: boolean; env?: Record<string, string> } = {}) {
  const result = await topup(['__complete', ...words], options);
  expect(result.code).toBe(0);
  // No noise: a shell would print stderr over the command line.
  expect(result.err).toBe('');
  const lines = result.out.split('\n').filter((line) => line !== '');
  expect(lines.at(-1)).toMatch(/^:\d+$/);
  return { values: lines.slice(0, -1).map((line) => line.split('\t')[0]), directive: lines.at(-1), lines: lines.slice(0, -1) };
}

const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

describe('topup completion', () => {
  it.each([
    { args: ['completion'], err: /missing required argument 'shell'/ },
    { args: ['completion', 'tcsh'], err: /value 'tcsh' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish\./ },
  ])('$args → exit 2 with one line', async ({ args, err }) => {
    const result = await topup(args);
    expectUsageError(result, err);
  });

  it.each(['bash', 'zsh', 'fish'])('%s: prints a script on stdout that asks topup __complete, nothing on stderr', async (shell) => {
    const result = await topup(['completion', shell]);
    expect(result.code).toBe(0);
    expect(result.err).toBe('');
    expect(result.out).toMatch(new RegExp(`^(#compdef topup\\n)?# ${shell} completion for topup`));
    expect(result.out).toContain(' __complete ');
  });

  it('bash: the script is valid bash', async () => {
    const script = (await topup(['completion', 'bash'])).out;
    const check = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it.skipIf(!hasShell('zsh'))('zsh: the script is valid zsh', async () => {
    const file = join(config.dir, '_topup');
    writeFileSync(file, (await topup(['completion', 'zsh'])).out);
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).stderr).toBe('');
  });

  it.skipIf(!hasShell('fish'))('fish: the script is valid fish', async () => {
    const file = join(config.dir, 'topup.fish');
    writeFileSync(file, (await topup(['completion', 'fish'])).out);
    expect(spawnSync('fish', ['--no-execute', file], { encoding: 'utf8' }).stderr).toBe('');
  });

  it('each script is named after the program and installs itself for it', () => {
    expect(renderCompletion('bash', 'topup')).toContain('\ncomplete -F _topup topup\n');
    expect(renderCompletion('zsh', 'topup')).toContain('else compdef _topup topup; fi\n');
    expect(renderCompletion('fish', 'topup')).toContain("\ncomplete -c topup -f -a '(__topup_complete)'\n");
  });
});

const ORDER_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'];

describe('topup __complete: commands, flags and fixed values (no lookup)', () => {
  it.each<{ words: string[]; exactly?: string[]; includes?: string[]; excludes?: string[]; directive?: string }>([
    {
      words: [''],
      includes: ['health', 'orders', 'invoices', 'balance', 'dashboard', 'api', 'completion', 'mock', 'auth', 'help'],
      excludes: ['list', '--json', '__complete'],
    },
    { words: ['or'], exactly: ['orders'] },
    { words: ['orders', ''], exactly: ['list', 'show', 'create', 'batch'] },
    { words: ['orders', 'sh'], exactly: ['show'] },
    { words: ['orders', 'list', '--st'], exactly: ['--status'] },
    { words: ['orders', 'list', '--status', ''], exactly: ORDER_STATUSES },
    { words: ['orders', 'list', '--type', 'v'], exactly: ['vip_server'] },
    { words: ['orders', 'list', '--page', ''], exactly: [] },
    { words: ['deposits', 'list', '--status', 'p'], exactly: ['pending', 'paid'] },
    {
      words: ['invoices', 'status', 'INV1', '--'],
      includes: ['--wait', '--interval', '--timeout', '--json', '--no-color', '--help'],
      excludes: ['--status'],
    },
    { words: ['completion', ''], exactly: ['bash', 'zsh', 'fish'] },
    { words: ['mock', 'p'], exactly: ['pay'] },
    // The value of --profile is not a command, even when it is named like one.
    { words: ['--profile', 'mock', 'p'], exactly: ['packages', 'payment-methods'] },
    { words: ['--json', 'orders', 'show', '--'], includes: ['--help', '--json'], excludes: ['--status'] },
    { words: ['config', 'get', ''], exactly: ['profile', 'base_url', 'chat_user_id', 'time_zone', 'accessible'] },
    { words: ['config', 'set', 'b'], exactly: ['base_url'] },
    { words: ['help', ''], includes: ['environment', 'exit-codes', 'formatting', 'sandbox', 'orders', 'auth'] },
    { words: ['help', 'orders', ''], exactly: ['list', 'show', 'create', 'batch'] },
    { words: ['help', 'e'], exactly: ['environment', 'exit-codes'] },
    { words: ['auth', ''], exactly: ['login', 'logout', 'status', 'token', 'switch'] },
    { words: ['mock', 'deposit', '1', '--account', 'r'], exactly: ['rich'] },
    { words: ['mock', 'state', 'load', ''], exactly: [], directive: ':0' },
    { words: ['mock', 'serve', '--state', ''], exactly: [], directive: ':0' },
    // File names where a file goes: the shell's own completion (directive 0).
    { words: ['orders', 'batch', 'ord'], exactly: [], directive: ':0' },
    { words: ['orders', 'batch', 'x.csv', '--results', ''], exactly: [], directive: ':0' },
    { words: ['api', 'me', '--input', ''], exactly: [], directive: ':0' },
    { words: ['mock', 'serve', '--ready-file', ''], exactly: [], directive: ':0' },
    { words: ['mock', 'serve', '--control-secret-file', ''], exactly: [], directive: ':0' },
  ])('$words', async ({ words, exactly, includes, excludes, directive }) => {
    const result = await offered(words);
    if (exactly) expect(result.values).toEqual(exactly);
    for (const word of includes ?? []) expect(result.values).toContain(word);
    for (const word of excludes ?? []) expect(result.values).not.toContain(word);
    expect(result.directive).toBe(directive ?? ':4');
  });

  it('subcommands and flags carry their descriptions after a tab, on one line', async () => {
    expect((await offered(['orders', 'sh'])).lines).toEqual(['show\tShow one order with its pricing and dates']);
    expect((await offered(['orders', 'list', '--st'])).lines).toEqual(['--status\tonly orders in this status']);
  });

  it('after a command that takes an argument, a bare space offers no flags (bash made that a stray "-")', async () => {
    // Nothing is configured and no order exists yet: no candidate at all, and no file names.
    expect(await offered(['orders', 'show', ''])).toEqual({ values: [], directive: ':4', lines: [] });
    expect((await offered(['orders', 'show', '-'])).values).toContain('--json');
  });

  it('commands, flags and fixed values need no lookup: none is made', async () => {
    const program = buildProgram(new CliContext(fakeIO()));
    const refuse = async () => {
      throw new Error('a lookup was made');
    };
    const lookups: Lookups = { profiles: refuse, invoiceCodes: refuse, depositCodes: refuse, articleSlugs: refuse, paymentMethods: refuse };
    for (const words of [[''], ['orders', 'list', '--status', ''], ['orders', 'show', '-'], ['config', 'get', ''], ['help', 'orders', '']])
      await expect(complete(program, words, lookups)).resolves.toMatchObject({ directive: 4 });
  });

  it('reads the target options among the words, wherever they stand', () => {
    const program = buildProgram(new CliContext(fakeIO()));
    expect(readWords(program, ['--profile', 'staging', 'orders', 'show', '--base-url=http://x', '--mock', '']).target).toEqual({
      mock: true,
      profile: 'staging',
      baseUrl: 'http://x',
    });
    expect(readWords(program, ['orders', 'show', '']).path).toEqual(['orders', 'show']);
  });
});

describe('topup __complete: values from the config folder and the embedded sandbox', () => {
  async function createOrder(): Promise<string> {
    const created = await topup(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001']);
    expect(created.code).toBe(0);
    return created.out.trim();
  }

  it.each([false, true])('invoice codes of the recent orders, with their status and username (tty %s)', async (tty) => {
    const first = await createOrder();
    const second = await createOrder();
    const result = await offered(['orders', 'show', ''], { tty });
    expect(result.lines).toEqual([`${second}\tpending BuilderBob`, `${first}\tpending BuilderBob`]);
    expect((await offered(['mock', 'pay', second])).values).toEqual([second]);
    expect((await offered(['mock', 'pay', second.slice(0, -1)])).values).toEqual([second, first]);
    expect((await offered(['invoices', 'status', 'INV0'])).values).toEqual([]);
  });

  it('deposit codes, article slugs and payment methods', async () => {
    const deposit = await topup(['mock', 'deposit', '50000']);
    expect((await offered(['deposits', 'show', ''])).lines).toEqual([`${deposit.out.trim()}\tpending`]);
    expect((await offered(['articles', 'show', 'keeping'])).lines).toEqual(['keeping-your-api-token-safe\tKeeping your API token safe']);
    // The document does not show a payment method's fields: a lean server's list has no codes to offer, and none are made up.
    expect((await offered(['orders', 'create', '--payment-method', ''])).values).toEqual(
      LEAN ? [] : ['invoice', 'balance', 'qris', 'bank_transfer'],
    );
  });

  it('profile names for --profile and config set profile, from the config folder', async () => {
    writeFileSync(
      join(config.dir, 'config.json'),
      JSON.stringify({
        current_profile: 'main',
        profiles: { main: { base_url: 'http://127.0.0.1:9' }, staging: { base_url: 'http://127.0.0.1:9' } },
      }),
    );
    expect((await offered(['--profile', ''])).values).toEqual(['main', 'staging']);
    expect((await offered(['config', 'set', 'profile', 's'])).values).toEqual(['staging']);
  });

  it('a target that is an error (TOPUP_TOKEN without a server) completes nothing, silently', async () => {
    expect(await offered(['orders', 'show', ''], { env: { TOPUP_TOKEN: 'topup_test_x' } })).toEqual({
      values: [],
      directive: ':4',
      lines: [],
    });
  });
});

describe('topup __complete against a served sandbox', () => {
  let served: ServedSandbox;
  beforeAll(async () => {
    served = await serveSandbox();
  });
  afterAll(() => served.close());

  /** A profile logged in to the served sandbox, as `auth login` leaves it, written straight to the config folder. */
  const profileOf = (url: string, token: string) => {
    writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ current_profile: 'local', profiles: { local: { base_url: url } } }));
    writeFileSync(join(config.dir, 'credentials.json'), JSON.stringify({ tokens: { local: token } }), { mode: 0o600 });
  };

  it("a profile logged in to the server: that server's orders, with the profile's token", async () => {
    profileOf(served.url, served.token('unlinked'));
    const created = await topup(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001']);
    expect(created.code).toBe(0);
    const result = await offered(['orders', 'show', '']);
    expect(result.values).toEqual([created.out.trim()]);
  });

  it('a refused token completes nothing, silently', async () => {
    profileOf(served.url, 'topup_live_not_a_real_one');
    const result = await offered(['orders', 'show', '']);
    expect(result).toEqual({ values: [], directive: ':4', lines: [] });
  });

  it('TOPUP_BASE_URL of no profile: public lookups only, the token goes to no server a profile did not log in to', async () => {
    const env = { TOPUP_BASE_URL: served.url, TOPUP_TOKEN: served.token('unlinked') };
    expect((await topup(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'], { env })).code).toBe(0);
    expect((await offered(['orders', 'show', ''], { env })).values).toEqual([]);
    expect((await offered(['articles', 'show', 'keeping'], { env })).values).toEqual(['keeping-your-api-token-safe']);
  });
});

describe('topup __complete against a server that never answers', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    // Accepts every connection and never says a word.
    server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([[['orders', 'show', '']], [['articles', 'show', '']], [['orders', 'create', '--payment-method', '']]])(
    '%j: nothing, within the 1.5 s deadline',
    async (words) => {
      writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ current_profile: 'main', profiles: { main: { base_url: url } } }));
      writeFileSync(join(config.dir, 'credentials.json'), JSON.stringify({ tokens: { main: 'topup_test_x' } }), { mode: 0o600 });
      const started = Date.now();
      const result = await offered(words);
      const took = Date.now() - started;
      expect(result).toEqual({ values: [], directive: ':4', lines: [] });
      expect(took).toBeGreaterThanOrEqual(1_400);
      expect(took).toBeLessThan(2_500);
    },
  );
});

describe('help of the read commands', () => {
  it.each([
    ['me'],
    ['dashboard'],
    ['balance'],
    ['transactions'],
    ['deposits'],
    ['deposits', 'list'],
    ['deposits', 'show'],
    ['orders'],
    ['orders', 'list'],
    ['orders', 'show'],
    ['invoices'],
    ['invoices', 'show'],
    ['invoices', 'status'],
    ['articles'],
    ['articles', 'list'],
    ['articles', 'show'],
    ['api'],
    ['completion'],
  ])('topup %s --help: usage, a description and at least one example', async (...path) => {
    const result = await topup([...path, '--help']);
    expect(result.code).toBe(0);
    const lines = result.out.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Usage: topup ${path.join(' ')}( |$)`));
    expect(lines[2]).toMatch(/^[A-Z].{10,}/);
    // The examples start at once with a topup command line (its output perhaps kept: `inv=$(topup …)`), and one runs this command.
    expect(result.out).toMatch(/\nExamples:\n {2}\$ (\w+=\$\(|source <\()?topup /);
    expect(result.out).toMatch(new RegExp(`\\n {2}\\$ (source <\\()?topup ${path.join(' ')}( |\\)|$)`, 'm'));
    expect(result.err).toBe('');
  });
});
