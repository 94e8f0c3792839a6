import { describe, expect, it } from 'vitest';
import { REVOKED_TOKEN } from '../../mocks/store/seed.js';
import { endpoints } from '../../src/contract/index.js';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes } from '../support/sandbox-harness.js';

const { demo, rich } = await accounts();
const NO_SUCH_INVOICE = 'INV20260302999999';

/** The 12 endpoints that need a token, each as a request that would succeed (or 404) with a valid one. */
const userEndpoints = endpoints
  .filter((e) => e.auth)
  .map((e) => ({
    name: `${e.method} ${e.path}`,
    method: e.method,
    path: e.path.replace('{invoice}', NO_SUCH_INVOICE),
    body: e.id === 'createOrder' ? SIMPLE_ORDER : undefined,
  }));

/** Authorization headers that must not authenticate; some carry a valid token in the wrong form. */
const refusedCredentials: Array<{ name: string; authorization?: string }> = [
  { name: 'missing' },
  { name: 'empty', authorization: '' },
  { name: 'scheme only', authorization: 'Bearer' },
  { name: 'Basic scheme', authorization: `Basic ${Buffer.from(`demo:${demo.token}`).toString('base64')}` },
  { name: 'valid token without a scheme', authorization: demo.token },
  { name: 'valid token under the Token scheme', authorization: `Token ${demo.token}` },
  { name: 'two tokens', authorization: `Bearer ${demo.token} ${rich.token}` },
  { name: 'unknown token of the sandbox prefix', authorization: 'Bearer topup_test_unknown_000000000000000000' },
  { name: 'unknown token of the production prefix', authorization: 'Bearer topup_live_unknown_000000000000000000' },
  { name: 'valid token with a character changed', authorization: `Bearer ${demo.token.slice(0, -1)}X` },
  { name: 'revoked token', authorization: `Bearer ${REVOKED_TOKEN}` },
];

describe.each(transports)('auth (%s)', (transport) => {
  const sandbox = useSandboxes();

  describe.each(refusedCredentials)('$name credentials', ({ authorization }) => {
    it('get 401 without error.code on each of the 12 user endpoints, and change nothing', async () => {
      expect(userEndpoints).toHaveLength(12);
      const t = await sandbox(transport);
      const before = t.state();
      for (const { name, method, path, body } of userEndpoints) {
        const answer = await t.request(method, path, { body, headers: authorization === undefined ? {} : { authorization } });
        expect(answer.status, name).toBe(401);
        expectError(answer, 401);
        for (const token of [demo.token, rich.token, REVOKED_TOKEN]) expect(answer.text).not.toContain(token);
      }
      expect(t.state()).toEqual(before);
    });
  });

  it.each([
    { name: 'demo', token: demo.token, mode: 'sandbox' },
    { name: 'rich', token: rich.token, mode: 'production' },
  ])('a valid $name token authenticates and reports mode $mode', async ({ token, mode }) => {
    const t = await sandbox(transport);
    expect(dataOf(await t.request('POST', '/api/v1/auth/token/validate', { token }))).toMatchObject({ valid: true, mode });
    expect(dataOf(await t.request('GET', '/api/v1/me', { token })).user.token_mode).toBe(mode);
  });

  it('accepts the Bearer scheme in any case, as HTTP auth schemes are case-insensitive', async () => {
    const t = await sandbox(transport);
    expect((await t.request('GET', '/api/v1/me', { headers: { authorization: `bearer ${demo.token}` } })).status).toBe(200);
  });

  describe.each(['token', 'api_token', 'access_token'])('a token in the query parameter %s', (param) => {
    it.each([
      ['GET', '/api/v1/me'],
      ['GET', '/api/v1/me/balance'],
      ['POST', '/api/v1/auth/token/validate'],
      ['GET', '/api/v1/health'],
    ])('is refused on %s %s with 400 TOKEN_IN_URL, even when valid', async (method, path) => {
      const t = await sandbox(transport);
      const before = t.state();
      const answer = await t.request(method, `${path}?${param}=${encodeURIComponent(demo.token)}`);
      expectError(answer, 400, 'TOKEN_IN_URL', [param]);
      expect(answer.text).not.toContain(demo.token);
      expect(t.state()).toEqual(before);
    });

    it('is refused even beside a valid Authorization header, and creates no order', async () => {
      const t = await sandbox(transport);
      const before = t.state();
      const answer = await t.request('POST', `/api/v1/me/orders?${param}=${encodeURIComponent(rich.token)}`, {
        token: demo.token,
        body: SIMPLE_ORDER,
      });
      expectError(answer, 400, 'TOKEN_IN_URL', [param]);
      expect(t.state()).toEqual(before);
    });
  });
});
