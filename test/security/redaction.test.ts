import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { OFFLINE_STATE_FILE } from '../../src/cli/config-dir.js';
import { maskToken, redactBody, redactHeaders, redactJson, redactText, redactUrl, secretsOfBody } from '../../src/contract/redact.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli, type RunResult } from '../cli/run-cli.js';

/**
 * A token where it does not belong, tried as an attacker (and an unlucky bot author) would: in the query, in headers
 * that are not Authorization, in a path segment, in a body, and echoed by the server in its answers. Neither the CLI's
 * stdout, stderr and --debug output, nor the sandbox's journal (over HTTP, its stream, `topup mock logs`, the
 * embedded sandbox's request log on disk) may hold one whole: the one redaction, src/contract/redact.ts.
 */

/** A real server's token need not have the sandbox's prefixes: this one is configured as the CLI's token. */
const PLAIN = 'ghp_Qm7xVr2LpT9wKc4NbZ8sYd3FhJ6g';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the one redaction (src/contract/redact.ts)', () => {
  const T = 'topup_live_rich_9Xk2mQ7vLp3RtY8wZc4bNs6d';
  it.each([
    ['a sandbox token anywhere in text', `it is ${T}.`, [], 'it is topup_live_…Ns6d.'],
    ['a known token of any shape, word for word', `user ${PLAIN}!`, [PLAIN], `user …${PLAIN.slice(-4)}!`],
    ['a known token URL-encoded', `?q=${encodeURIComponent('a+b/c=d-e_f9999')}`, ['a+b/c=d-e_f9999'], '?q=…9999'],
    // A server may echo it upper-cased (a header value, a shouted error).
    [
      'a known token in another case',
      `X-Echo: ${PLAIN.toUpperCase()}; ${PLAIN}`,
      [PLAIN],
      `X-Echo: …${PLAIN.slice(-4)}; …${PLAIN.slice(-4)}`,
    ],
    // İ lowers to two characters: positions in the lower-case copy are not the text's.
    ['… after a letter whose lower case is longer', `İ ${PLAIN.toUpperCase()} İ`, [PLAIN], `İ …${PLAIN.slice(-4)} İ`],
    [
      '?token= and ?access_token=',
      `/me?token=${T}&access_token=abcdefghijklmnop1&n=1`,
      [],
      '/me?token=topup_live_…Ns6d&access_token=…nop1&n=1',
    ],
    ['api_key in a form body', `api_key=abcdefghijklmnopq9&x=1`, [], 'api_key=…opq9&x=1'],
    ['Basic credentials', `-H 'Authorization: Basic dXNlcjpzM2NyM3QtcGFzcw=='`, [], `-H 'Authorization: Basic [redacted]'`],
    ['a Bearer token of another shape', `Bearer sk_live_51HxYz0abcdefghij`, [], 'Bearer …ghij'],
    ['a Cookie header in text', 'Cookie: session=abc; theme=dark', [], 'Cookie: [redacted]'],
    ['credentials in a URL', 'http://user:pa55word@127.0.0.1:1/x', [], 'http://[redacted]@127.0.0.1:1/x'],
    [
      'English stays English',
      'The token is missing. Token expired. Basic plan. Basic Pack-100.',
      [],
      'The token is missing. Token expired. Basic plan. Basic Pack-100.',
    ],
    ['short known secrets are not looked for', 'a secret word', ['secret'], 'a secret word'],
  ] as const)('%s', (_name, input, known, expected) => {
    expect(redactText(input, known)).toBe(expected);
  });

  it('cuts credential headers always, and tokens in any other header', () => {
    expect(
      redactHeaders(
        {
          authorization: `Bearer ${T}`,
          'proxy-authorization': 'Basic dXNlcjpwYXNzd29yZA==',
          cookie: `session=${T}`,
          'set-cookie': 'sid=abc; HttpOnly',
          'x-api-key': PLAIN,
          'x-other': `token ${T}`,
          'idempotency-key': 'order-7f1c',
        },
        [],
      ),
    ).toEqual({
      authorization: 'Bearer topup_live_…Ns6d',
      'proxy-authorization': 'Basic [redacted]',
      cookie: '[redacted]',
      'set-cookie': '[redacted]',
      'x-api-key': `…${PLAIN.slice(-4)}`,
      'x-other': 'token topup_live_…Ns6d',
      'idempotency-key': 'order-7f1c',
    });
  });

  it('cuts JSON by field name and by value, as text and as values', () => {
    const body = { token: PLAIN, password: 'hunter2!', token_name: 'Rich bot key', note: `echo ${T}`, n: 1 };
    const expected = {
      token: `…${PLAIN.slice(-4)}`,
      password: '[redacted]',
      token_name: 'Rich bot key',
      note: 'echo topup_live_…Ns6d',
      n: 1,
    };
    expect(redactJson(body)).toEqual(expected);
    expect(JSON.parse(redactBody(JSON.stringify(body)))).toEqual(expected);
    expect(redactUrl(`http://127.0.0.1/api/v1/me/orders/${PLAIN}?x=1`, [PLAIN])).toBe(
      `http://127.0.0.1/api/v1/me/orders/…${PLAIN.slice(-4)}?x=1`,
    );
  });

  it('shows a token as its family and last 4 characters, or nothing when it is too short to spare 4', () => {
    expect([maskToken(T), maskToken(PLAIN), maskToken('topup_test_short'), maskToken('shortsecret')]).toEqual([
      'topup_live_…Ns6d',
      `…${PLAIN.slice(-4)}`,
      'topup_test_…',
      '[redacted]',
    ]);
  });

  it('takes text no URL can hold (a lone surrogate, from a stranger) without throwing, and still cuts around it', () => {
    const odd = `${T}\ud800`;
    expect(() => redactText(`x ${odd} y`, [odd])).not.toThrow();
    expect(redactText(`x ${odd} y`, [odd])).not.toContain(T);
    expect(redactHeaders({ authorization: '\ud800', 'x-other': `Bearer ${T}` }, ['\ud800abcdefgh'])['x-other']).not.toContain(T);
  });
});

/** A served sandbox with one more account whose username, display name and token name are its own token. */
async function echoingSandbox(): Promise<{ sandbox: Sandbox; server: HttpSandbox }> {
  const seed = (await createSandbox({ rateLimit: false })).snapshot();
  const accounts = seed.tables.accounts as Record<string, unknown>[];
  const rich = accounts.find((account) => account.name === 'rich')!;
  const id = Math.max(...accounts.map((account) => account.id as number)) + 1;
  accounts.push({ ...rich, id, name: 'echo', username: PLAIN, display_name: PLAIN, email: 'echo@sandbox.topup.test' });
  (seed.tables.tokens as Record<string, unknown>[]).push({
    token_sha256: sha256(PLAIN),
    account_id: id,
    mode: 'production',
    name: PLAIN,
    revoked: false,
    last_used_at: null,
  });
  const sandbox = await createSandbox({ rateLimit: false, snapshot: seed });
  return { sandbox, server: await startHttpSandbox(sandbox, { port: 0 }) };
}

describe('a JSON body with a value of millions of characters (an article in a loaded state)', () => {
  it('has its secret fields found and cut, without overflowing the regular expression engine', () => {
    const secret = 'abcdefghijklmnopq9';
    const body = Buffer.from(JSON.stringify({ api_key: secret, content: `${'x'.repeat(8 * 2 ** 20)}\\"end`, n: 1 })).toString();
    expect(secretsOfBody(body)).toEqual([secret]);
    const cut = redactBody(body);
    expect(cut).not.toContain(secret);
    expect(cut.length).toBeLessThan(body.length);
  });
});

describe('tokens where they do not belong never reach the journal whole', () => {
  let sandbox: Sandbox;
  let server: HttpSandbox;
  let rich: string;
  let config: ReturnType<typeof tempConfigDir>;

  beforeAll(async () => {
    ({ sandbox, server } = await echoingSandbox());
    rich = sandbox.account('rich').token;
    config = tempConfigDir();
  });
  afterAll(async () => {
    await server.close();
    config.cleanup();
  });

  const send = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init).then((answer) => answer.text());
  /** Neither token whole, nor its secret part. */
  const expectNoToken = (text: string) => {
    expect(text).not.toContain(rich.slice('topup_live_'.length));
    expect(text).not.toContain(PLAIN);
  };

  // Each placement, then what the journal shows of it.
  const placements: [string, () => Promise<unknown>, (entry: Record<string, any>) => void][] = [
    ['?token=', () => send(`/api/v1/me?token=${rich}`), (entry) => expect(entry.query).toEqual({ token: `topup_live_…${rich.slice(-4)}` })],
    [
      '?access_token= (a token without our prefixes)',
      () => send(`/api/v1/me?access_token=${PLAIN}`),
      (entry) => expect(entry.query).toEqual({ access_token: `…${PLAIN.slice(-4)}` }),
    ],
    [
      'X-Api-Key',
      () => send('/api/v1/me', { headers: { 'x-api-key': rich } }),
      (entry) => expect(entry.headers['x-api-key']).toBe(`topup_live_…${rich.slice(-4)}`),
    ],
    [
      'Cookie',
      () => send('/api/v1/me', { headers: { cookie: `session=${PLAIN}; theme=dark` } }),
      (entry) => expect(entry.headers.cookie).toBe('[redacted]'),
    ],
    [
      'Proxy-Authorization',
      () => send('/api/v1/me', { headers: { 'proxy-authorization': `Bearer ${rich}` } }),
      (entry) => expect(entry.headers['proxy-authorization']).toBe(`Bearer topup_live_…${rich.slice(-4)}`),
    ],
    [
      'a path segment',
      () => send(`/api/v1/me/orders/${rich}`, { headers: { authorization: `Bearer ${rich}` } }),
      (entry) => expect(entry.path).toBe(`/api/v1/me/orders/topup_live_…${rich.slice(-4)}`),
    ],
    [
      'a path segment holding the request’s own token without our prefixes',
      () => send(`/api/v1/me/orders/${PLAIN}`, { headers: { authorization: `Bearer ${PLAIN}` } }),
      (entry) => expect(entry.path).toBe(`/api/v1/me/orders/…${PLAIN.slice(-4)}`),
    ],
    [
      'the body of token/validate',
      () =>
        send('/api/v1/auth/token/validate', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: PLAIN }),
        }),
      (entry) => expect(JSON.parse(entry.request_body)).toEqual({ token: `…${PLAIN.slice(-4)}` }),
    ],
    [
      'a server answer that echoes the token (its username)',
      () => send('/api/v1/me', { headers: { authorization: `Bearer ${PLAIN}` } }),
      (entry) => {
        expect(entry.status).toBe(200);
        expect(entry.account).toBe(`…${PLAIN.slice(-4)}`);
        expect(JSON.parse(entry.response_body).data.user.username).toBe(`…${PLAIN.slice(-4)}`);
      },
    ],
  ];

  it.each(placements)('%s: recorded redacted, in memory and over HTTP', async (_name, place, check) => {
    const before = sandbox.requests.list().at(-1)?.id ?? 0;
    await place();
    const recorded = sandbox.requests.list({ afterId: before });
    expect(recorded).toHaveLength(1);
    check(recorded[0] as Record<string, any>);
    expectNoToken(JSON.stringify(recorded));
    const overHttp = JSON.parse(await send(`/__sandbox/requests?after_id=${before}`)) as { data: { requests: unknown[] } };
    expect(JSON.stringify(overHttp)).toContain(JSON.stringify(recorded[0]).slice(1, -1));
  });

  it('the journal over HTTP, its stream, the dashboard and `topup mock logs` hold no whole token', async () => {
    for (const [, place] of placements) await place();
    const total = sandbox.requests.count();
    expectNoToken(await send('/__sandbox/requests'));
    expectNoToken(await send('/__sandbox/'));

    // The live stream replays the kept entries from after_id=0: read until the last one has come.
    const controller = new AbortController();
    const stream = await fetch(`${server.url}/__sandbox/requests/stream?after_id=0`, { signal: controller.signal });
    const reader = stream.body!.getReader();
    let streamed = '';
    const lastId = sandbox.requests.list().at(-1)!.id;
    while (!streamed.includes(`id: ${lastId}@`)) {
      const { value, done } = await reader.read();
      if (done) break;
      streamed += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(streamed).toMatch(new RegExp(`id: ${lastId}@[0-9a-f-]+\nevent: request\n`));
    expectNoToken(streamed);

    for (const args of [
      ['mock', 'logs'],
      ['--json', 'mock', 'logs'],
    ]) {
      const result = await runCli(config.dir, [...args, '--base-url', server.url]);
      expect(result.code).toBe(0);
      expect(result.out.trimEnd().split('\n').length).toBeGreaterThanOrEqual(Math.min(total, 20));
      expectNoToken(result.out + result.err);
    }
  });
});

describe('a server that echoes the configured token gets it printed redacted, never whole', () => {
  let sandbox: Sandbox;
  let server: HttpSandbox;
  let config: ReturnType<typeof tempConfigDir>;
  const topup = (args: string[], options: Parameters<typeof runCli>[2] = {}) => runCli(config.dir, args, options);
  const everything = (result: RunResult) => result.out + result.err;

  beforeAll(async () => {
    ({ sandbox, server } = await echoingSandbox());
    config = tempConfigDir();
    const login = await topup(['auth', 'login', '--with-token', '--base-url', server.url], { stdin: `${PLAIN}\n` });
    expect(login.code).toBe(0);
  });
  afterAll(async () => {
    await server.close();
    config.cleanup();
  });

  it.each([
    [['me'], `…${PLAIN.slice(-4)}`],
    [['me', '--json'], `"username": "…${PLAIN.slice(-4)}"`],
    [['--debug', 'me'], `"authorization":"Bearer …${PLAIN.slice(-4)}"`],
    [['auth', 'status'], `token_name: …${PLAIN.slice(-4)}`],
    [['auth', 'status', '--json'], `"token_name": "…${PLAIN.slice(-4)}"`],
    [['--debug', 'auth', 'status'], `token_name: …${PLAIN.slice(-4)}`],
    [['api', 'me'], `"username": "…${PLAIN.slice(-4)}"`],
    [['api', '--verbose', 'me'], `> authorization: Bearer …${PLAIN.slice(-4)}`],
    [['api', '-i', 'me', '-H', `X-Api-Key: ${PLAIN}`], `"name": "…${PLAIN.slice(-4)}"`],
  ])('%j', async (args, shown) => {
    const result = await topup(args);
    expect(result.code).toBe(0);
    expect(everything(result)).toContain(shown);
    expect(everything(result)).not.toContain(PLAIN);
  });

  it('with TOPUP_TOKEN as well as a stored profile', async () => {
    const result = await topup(['--debug', 'me'], { env: { TOPUP_TOKEN: PLAIN, TOPUP_BASE_URL: server.url } });
    expect(result.code).toBe(0);
    expect(everything(result)).not.toContain(PLAIN);
  });

  it('--verbose shows a body field named like a secret cut, even a token the CLI does not know', async () => {
    const other = 'sk_other_Zq8Lm3Np5Rt7Vx9Bc2Df';
    const result = await topup(['api', '--verbose', '-X', 'POST', 'auth/token/validate', '-f', `token=${other}`]);
    expect(result.err).toContain(`{"token":"…${other.slice(-4)}"}`);
    expect(everything(result)).not.toContain(other);
    expect(JSON.stringify(sandbox.requests.list())).not.toContain(other);
  });

  it('the settings hold it in credentials.json only: the username the server echoed it as is kept cut', () => {
    expect(readFileSync(join(config.dir, 'credentials.json'), 'utf8')).toContain(PLAIN);
    const settings = readFileSync(join(config.dir, 'config.json'), 'utf8');
    expect(settings).toContain(`"username": "…${PLAIN.slice(-4)}"`);
    expect(settings).not.toContain(PLAIN);
  });

  it('the journal of those runs holds the token nowhere', () => {
    expect(sandbox.requests.count()).toBeGreaterThan(5);
    expect(JSON.stringify(sandbox.requests.list())).not.toContain(PLAIN);
  });

  it('`auth token` prints it whole: printing the token is its job', async () => {
    expect(await topup(['auth', 'token'])).toEqual({ code: 0, out: `${PLAIN}\n`, err: '' });
    const json = await topup(['auth', 'token', '--json']);
    expect(JSON.parse(json.out)).toMatchObject({ token: PLAIN });
  });
});

describe('commander echoes what was typed: never a whole credential', () => {
  let config: ReturnType<typeof tempConfigDir>;
  beforeAll(() => {
    config = tempConfigDir();
  });
  afterAll(() => config.cleanup());

  it.each([
    [['api', 'me', '-H', 'Authorization: Basic dXNlcjpzM2NyM3QtcGFzcw=='], 'dXNlcjpzM2NyM3QtcGFzcw==', 'Authorization: Basic [redacted]'],
    [['api', 'me', '-H', 'Authorization: Bearer sk_live_51HxYz0abcdefghij'], 'sk_live_51HxYz0abcdefghij', 'Authorization: Bearer …ghij'],
    [['api', 'me', '-H', 'Cookie: session=sk_live_51HxYz0abcdefghij'], 'sk_live_51HxYz0abcdefghij', 'Cookie: [redacted]'],
    [['Bearer sk_live_51HxYz0abcdefghij'], 'sk_live_51HxYz0abcdefghij', "unknown command 'Bearer …ghij'"],
    [['orders', 'Authorization: Basic dXNlcjpzM2NyM3QtcGFzcw=='], 'dXNlcjpzM2NyM3QtcGFzcw==', "'Authorization: Basic [redacted]'"],
    [['packages', `--api-key=${PLAIN}`], PLAIN, '--api-key=…'],
    [['--json', 'packages', '--tokn', PLAIN], PLAIN, ''],
  ])('%j', async (args, secret, shown) => {
    const result = await runCli(config.dir, args);
    expect(result.code).toBe(2);
    expect(result.err).toContain(shown);
    expect(result.out + result.err).not.toContain(secret);
  });

  it('a stored token typed by mistake as an unknown word is cut too, whatever its shape', async () => {
    const stored = tempConfigDir();
    try {
      const served = await echoingSandbox();
      try {
        const login = await runCli(stored.dir, ['auth', 'login', '--with-token', '--base-url', served.server.url], { stdin: `${PLAIN}\n` });
        expect(login.code).toBe(0);
        const result = await runCli(stored.dir, [PLAIN]);
        expect(result.code).toBe(2);
        expect(result.err).toContain(`…${PLAIN.slice(-4)}`);
        expect(result.err).not.toContain(PLAIN);
        // Runs that fail before they read the settings, in other places a word is echoed.
        for (const args of [
          ['config', 'get', PLAIN],
          ['config', 'set', PLAIN, 'x'],
          ['help', PLAIN],
          ['help', 'orders', PLAIN],
          ['--jq', PLAIN, 'health'],
          ['--json', 'config', 'get', PLAIN],
        ]) {
          const echoed = await runCli(stored.dir, args);
          expect({ args, code: echoed.code }).toEqual({ args, code: 2 });
          expect(echoed.out + echoed.err).toContain(`…${PLAIN.slice(-4)}`);
          expect(echoed.out + echoed.err).not.toContain(PLAIN);
        }
      } finally {
        await served.server.close();
      }
    } finally {
      stored.cleanup();
    }
  });
});

describe('the embedded sandbox keeps no whole token in its request log on disk', () => {
  let config: ReturnType<typeof tempConfigDir>;
  beforeAll(() => {
    config = tempConfigDir();
  });
  afterAll(() => config.cleanup());

  it('query, X-Api-Key, Proxy-Authorization, a path segment and the token/validate body', async () => {
    const fixtures = await runCli(config.dir, ['--mock', '--json', 'mock', 'fixtures']);
    expect(fixtures.code).toBe(0);
    const accounts = (JSON.parse(fixtures.out) as { accounts: { name: string; token: string }[] }).accounts;
    const demo = accounts.find((a) => a.name === 'demo')!.token;
    const rich = accounts.find((a) => a.name === 'rich')!.token;
    expect(demo).toMatch(/^topup_test_/);
    const secrets = [demo.slice('topup_test_'.length), rich.slice('topup_live_'.length)];
    const expectNoToken = (text: string) => {
      for (const secret of secrets) expect(text).not.toContain(secret);
    };
    // The CLI refuses its own token in a URL; another one goes, and the sandbox refuses it (TOKEN_IN_URL, exit 1).
    const runs: [string[], number][] = [
      [['--mock', 'api', `me?access_token=${rich}`], 1],
      [['--mock', 'api', '--verbose', 'me', '-H', `X-Api-Key: ${demo}`], 0],
      [['--mock', 'api', '--verbose', 'me', '-H', `Proxy-Authorization: Bearer ${rich}`], 0],
      [['--mock', '--debug', 'api', `me/orders/${rich}`], 1],
      [['--mock', 'api', '-X', 'POST', 'auth/token/validate', '-f', `token=${rich}`], 0],
    ];
    for (const [args, code] of runs) {
      const result = await runCli(config.dir, args);
      expect({ args, code: result.code }).toEqual({ args, code });
      expectNoToken(result.out + result.err);
    }
    const log = readFileSync(join(config.dir, `${OFFLINE_STATE_FILE}.requests.ndjson`), 'utf8');
    expect(log.trimEnd().split('\n').length).toBeGreaterThanOrEqual(runs.length);
    expect(log).toContain(`"x-api-key":"topup_test_…${demo.slice(-4)}"`);
    expect(log).toContain(`"path":"/api/v1/me/orders/topup_live_…${rich.slice(-4)}"`);
    expect(log).toContain(`"query":{"access_token":"topup_live_…${rich.slice(-4)}"}`);
    expectNoToken(log);
    const logs = await runCli(config.dir, ['--mock', '--json', 'mock', 'logs']);
    expect(logs.code).toBe(0);
    expect(logs.out).toContain(`topup_test_…${demo.slice(-4)}`);
    expectNoToken(logs.out + logs.err);
  });
});
