import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSandbox, startHttpSandbox } from '../../mocks/index.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';

/*
 * A shop whose catalog is empty (no active credit packages, no payment methods): a sandbox started from a state with
 * those tables emptied, over real loopback HTTP. On a terminal the user reads that the list is empty, as paged lists
 * say it, instead of a lone header row; piped, a script gets no lines at all; --json is the answer as it came.
 */

let server: { url: string; close(): Promise<void> };
const config = tempConfigDir();

beforeAll(async () => {
  const seeded = await createSandbox({ rateLimit: false });
  const state = seeded.snapshot();
  const snapshot = { ...state, tables: { ...state.tables, creditPackages: [], paymentMethods: [] } };
  server = await startHttpSandbox(await createSandbox({ rateLimit: false, snapshot }), { port: 0 });
});
afterAll(async () => {
  await server.close();
  config.cleanup();
});

const env = () => ({ TOPUP_BASE_URL: server.url });

it.each([
  ['packages', 'No active credit packages.'],
  ['payment-methods', 'No active payment methods.'],
])('%s on a terminal: says the list is empty, on stderr', async (command, said) => {
  const result = await runCli(config.dir, [command], { env: env(), tty: true });
  expect(result.code).toBe(0);
  expect(result.out).toBe('');
  expect(result.err).toContain(said);
});

it.each(['packages', 'payment-methods'])('%s piped: no lines at all, and exit 0', async (command) => {
  const result = await runCli(config.dir, [command], { env: env() });
  expect(result.code).toBe(0);
  expect(result.out).toBe('');
  expect(result.err).toBe('');
});

it('--json keeps the empty list as the server sent it', async () => {
  const result = await runCli(config.dir, ['--json', 'packages'], { env: env() });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.out)).toMatchObject({ packages: [] });
});

it('a catalog with packages still shows them as a table on a terminal', async () => {
  const full = await startHttpSandbox(await createSandbox({ rateLimit: false }), { port: 0 });
  try {
    const result = await runCli(config.dir, ['packages'], { env: { TOPUP_BASE_URL: full.url, NO_COLOR: '1' }, tty: true });
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^CODE\s+NAME/);
    expect(result.err).not.toContain('No active credit packages');
  } finally {
    await full.close();
  }
});
