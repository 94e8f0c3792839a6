import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAccount } from '../../mocks/store/fixtures.js';
import { tempConfigDir } from '../support/fake-io.js';
import { baseEnv, BINARY, ensureBuilt, ROOT, serveMock, topup, topupCommand, type ServedMock } from './built-cli.js';

/*
 * topup as a tool on someone's machine: started from any folder, its prompts on a real terminal, and `mock serve`'s
 * pages. Run against `node bin/topup.js`, and by .ci/run against the single-file executable (TOPUP_TEST_BINARY), which
 * carries its version, its pages and jq inside: nothing here may come from the repository beside it.
 */
let config: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let served: ServedMock | undefined;

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
/** util-linux's `script` gives a command a pseudo-terminal; found on this process's PATH (the CLI's has no node). */
const script = (process.env.PATH ?? '')
  .split(delimiter)
  .map((folder) => join(folder, 'script'))
  .find((path) => existsSync(path));

beforeAll(async () => {
  ensureBuilt();
  config = tempConfigDir();
  env = baseEnv(config.dir);
  served = await serveMock(env);
}, 120_000);

afterAll(async () => {
  await served?.stop();
  config?.cleanup();
});

/** Runs topup on a pseudo-terminal, typing `keys` once its prompt is on screen; resolves with what the screen showed. */
function onTerminal(args: string[], prompt: RegExp, keys: string): Promise<{ code: number | null; screen: string }> {
  const command = topupCommand(args)
    .flat()
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const child = spawn(script!, ['-qec', command, '/dev/null'], { cwd: config.dir, env: { ...env, TERM: 'xterm' }, stdio: 'pipe' });
  let screen = '';
  let typed = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    if (!typed && prompt.test(screen)) {
      typed = true;
      child.stdin.write(keys);
    }
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      child.stdin.destroy();
      resolve({ code, screen });
    }),
  );
}

describe(`topup as a tool (${BINARY === undefined ? 'node bin/topup.js' : 'the single-file executable'})`, () => {
  it('prints its version from a folder that is not the repository', async () => {
    const [command, args] = topupCommand(['--version']);
    const run = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn(command, args, { cwd: config.dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(run).toEqual({ code: 0, out: `${version}\n` });
  });

  it('serves the dashboard and the hosted invoice page from `mock serve`', async () => {
    const dashboard = await fetch(`${served!.url}/__sandbox/`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<title>topup sandbox</title>');

    const token = fixtureAccount(served!, 'rich').token;
    const created = await topup(
      ['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001', '--base-url', served!.url],
      {
        env: { ...env, TOPUP_TOKEN: token },
      },
    );
    expect(created.code, created.stderr).toBe(0);
    const invoice = created.stdout.trim();
    const page = await fetch(`${served!.url}/user/invoice/${invoice}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(invoice);
  });

  // A single executable's script can require() node's own modules only: a path no test walks must not need a file.
  it.skipIf(BINARY === undefined)("the executable's script loads nothing but node's own modules", () => {
    const bundle = readFileSync(join(ROOT, 'build', 'sea', 'topup.cjs'), 'utf8');
    const required = [...bundle.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((match) => match[1]!);
    expect(required.length).toBeGreaterThan(10);
    expect(required.filter((id) => !isBuiltin(id))).toEqual([]);
    expect(bundle).not.toMatch(/\bimport\(/);
  });

  it.skipIf(script === undefined)('asks for the token on a terminal, hidden, and logs in with it', async () => {
    // A sandbox token: a production one would also be offered to store the chat user id (auth.test.ts tests that).
    const token = fixtureAccount(served!, 'demo').token;
    const login = await onTerminal(['auth', 'login', '--base-url', served!.url], /API token/, `${token}\r`);
    expect(login.code, login.screen).toBe(0);
    expect(login.screen).not.toContain(token);
    const status = await topup(['auth', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ status: 'valid', username: 'demo', base_url: served!.url })]);
  });
});
