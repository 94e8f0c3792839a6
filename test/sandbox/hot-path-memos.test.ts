import { describe, expect, it } from 'vitest';
import { accounts, dataOf, expectError, useSandboxes, type Transport } from '../support/sandbox-harness.js';

/*
 * The sandbox remembers, in small bounded tables, what it worked out for the URLs, tokens and bodies a bot repeats
 * (mocks/core/bounded-memo.ts: request-url.ts, rules/auth.ts, the journal's cuts). A stranger sends new ones without
 * end: every answer must stay what it would be without the tables, before and after they overflow.
 */
const { demo, rich } = await accounts();
const STRANGER_REQUESTS = 600; // past every table's bound (256 at most), so each is emptied at least twice

describe.each<Transport>(['in-process', 'http'])('bounded memos under a stranger’s stream (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('tokens: each unknown one is refused, and the known ones still read their own balance after the storm', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const before = dataOf(await t.request('GET', '/api/v1/me/balance', { token: demo.token }));
    for (let i = 0; i < STRANGER_REQUESTS; i++) {
      const answer = await t.request('GET', '/api/v1/me/balance', { token: `${demo.token.slice(0, -4)}${String(i).padStart(4, '0')}` });
      expect(answer.status).toBe(401);
    }
    expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: demo.token }))).toEqual(before);
    expect(dataOf(await t.request('GET', '/api/v1/me/balance', { token: rich.token })).balance).toBe(rich.balance);
  });

  it('URLs: a token in any of them is refused each time, and a plain URL answered the same after the storm', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const plain = dataOf(await t.request('GET', '/api/v1/catalog/credit-packages'));
    const tokenUrl = `/api/v1/me?access_token=${encodeURIComponent(demo.token)}`;
    for (let i = 0; i < STRANGER_REQUESTS; i++) {
      const answer = await t.request('GET', i % 2 === 0 ? `/api/v1/me?access_token=stolen${i}` : tokenUrl, { token: demo.token });
      expectError(answer, 400, 'TOKEN_IN_URL', ['access_token']);
    }
    expect(dataOf(await t.request('GET', '/api/v1/catalog/credit-packages'))).toEqual(plain);
    expectError(await t.request('GET', tokenUrl, { token: demo.token }), 400, 'TOKEN_IN_URL', ['access_token']);
  });

  it('the journal: every stranger token it kept is cut, however many came', async () => {
    const t = await sandbox(transport, { rateLimit: false });
    const stolen = Array.from({ length: STRANGER_REQUESTS / 6 }, (_, i) => `${rich.token.slice(0, -4)}${String(i).padStart(4, '0')}`);
    for (const token of stolen) await t.request('GET', '/api/v1/me', { token });
    const journal = JSON.stringify(t.sandbox.requests.list());
    for (const token of stolen) expect(journal).not.toContain(token);
    expect(t.sandbox.requests.list().length).toBeGreaterThanOrEqual(stolen.length);
  });
});
