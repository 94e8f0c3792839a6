import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, UsageError } from '../../src/client/index.js';
import { main } from '../../src/cli/main.js';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';

const RICH = 'topup_live_rich_9Xk2mQ7vLp3RtY8wZc4bNs6d';

/** Every file under a folder, with its contents. */
function filesUnder(dir: string): { path: string; text: string; mode: number }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8'), mode: statSync(path).mode & 0o777 }));
}

describe('secret hygiene', () => {
  let sandbox: Sandbox;
  let server: HttpSandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ rateLimit: false });
    server = await startHttpSandbox(sandbox, { port: 0 });
  });
  afterAll(() => server.close());

  it('a whole CLI session leaves the token only in the 0600 credentials file, and never in any output', async () => {
    const { dir, cleanup } = tempConfigDir();
    try {
      const outputs: string[] = [];
      const run = async (args: string[], stdin?: string, env: Record<string, string> = {}) => {
        const io = fakeIO({ env: { TOPUP_CONFIG_DIR: dir, ...env }, ...(stdin === undefined ? {} : { stdin }) });
        const code = await main(args, io);
        outputs.push(io.out(), io.err());
        return code;
      };
      expect(await run(['auth', 'login', '--with-token', '--base-url', server.url], `${RICH}\n`)).toBe(0);
      expect(await run(['--debug', 'auth', 'status'])).toBe(0);
      expect(await run(['--debug', 'orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'])).toBe(0);
      expect(await run(['--debug', 'orders', 'list'])).toBe(0);
      expect(
        await run(['--debug', '--json', 'orders', 'create', '--username', 'ghost_user_404', '--place', '5001', '--pass', '9001']),
      ).toBe(5);
      expect(await run(['--debug', 'api', 'GET', '/me'])).toBe(0);
      expect(await run(['--debug', 'balance'], undefined, { TOPUP_TOKEN: `${RICH}x` })).toBe(4);
      expect(await run(['--mock', 'mock', 'deposit', '50000', '--paid'])).toBe(0);

      for (const text of outputs) expect(text).not.toContain(RICH);
      const files = filesUnder(dir);
      expect(files.map((f) => f.path.slice(dir.length + 1)).sort()).toEqual([
        'config.json',
        'credentials.json',
        'sandbox-state.json',
        'sandbox-state.json.journal',
        'sandbox-state.json.layout',
      ]);
      for (const file of files) {
        expect(file.mode, file.path).toBe(0o600);
        if (!file.path.endsWith('credentials.json')) expect(file.text, file.path).not.toContain(RICH);
      }
      expect(files.find((f) => f.path.endsWith('credentials.json'))!.text).toContain(RICH);
    } finally {
      cleanup();
    }
  });

  it('the sandbox keeps only token digests, so its state files hold no token', () => {
    const snapshot = JSON.stringify(sandbox.snapshot());
    for (const account of sandbox.fixtures().accounts) expect(snapshot).not.toContain(account.token);
  });

  it.each([
    ['a path parameter', (c: ReturnType<typeof createClient>) => c.orders.get(RICH)],
    ['a query value', (c: ReturnType<typeof createClient>) => c.orders.list({ client_reference: RICH })],
    ['an article slug', (c: ReturnType<typeof createClient>) => c.articles.get(`x-${RICH}`)],
  ])('the client refuses the token in %s before anything is sent', async (_where, call) => {
    const sent: string[] = [];
    const client = createClient({
      baseUrl: server.url,
      token: RICH,
      fetch: async (input, init) => {
        sent.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      },
    });
    await expect(call(client)).rejects.toBeInstanceOf(UsageError);
    expect(sent).toEqual([]);
  });

  it.each(['http://shop.example.com', 'http://10.0.0.5:8080', `${'http'}://example.com/?token=${RICH}`])(
    'the client refuses %s before anything is sent',
    (baseUrl) => {
      expect(() => createClient({ baseUrl, token: RICH })).toThrow(UsageError);
    },
  );
});
