import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { accounts, dataOf, expectError, fakeClock, transports, useSandboxes } from '../support/sandbox-harness.js';

const { rich } = await accounts();
const ORDERS = '/api/v1/me/orders';
const { invalid_orders: invalidOrders } = (await createSandbox({ now: fakeClock().now })).fixtures().platform;

/** Each refusal of the game platform, with what its message must name. */
const platformRefusals: Array<{ name: string; body: Record<string, unknown>; message: RegExp }> = [
  {
    name: 'unknown username',
    body: { platform_username: 'ghost_user_404', place_id: 5001, platform_pass_id: 9001 },
    message: /user 'ghost_user_404' was not found/i,
  },
  {
    name: 'unknown place',
    body: { platform_username: 'BuilderBob', place_id: 999_999, platform_pass_id: 9001 },
    message: /place 999999 was not found/i,
  },
  {
    name: 'place of another user',
    body: { platform_username: 'BuilderBob', place_id: 5002, platform_pass_id: 9101 },
    message: /place 5002 does not belong to .*BuilderBob/i,
  },
  {
    name: 'user without places',
    body: { platform_username: 'NoPlaces_Nina', place_id: 5001, platform_pass_id: 9001 },
    message: /place 5001 does not belong to .*NoPlaces_Nina/i,
  },
  {
    name: 'pass of another place',
    body: { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9101 },
    message: /pass 9101 is not a pass of place 5001/i,
  },
  {
    name: 'unknown pass',
    body: { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 123_456 },
    message: /pass 123456 is not a pass of place 5001/i,
  },
  {
    name: 'pass not for sale',
    body: { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9003 },
    message: /pass 9003 is not for sale/i,
  },
  {
    name: 'VIP server id sent as a gamepass',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 7001 },
    message: /pass 7001 is not a pass of place 5001/i,
  },
  {
    name: 'gamepass id sent as a VIP server',
    body: { order_type: 'vip_server', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 },
    message: /VIP server 9001 is not a VIP server of place 5001/i,
  },
  {
    name: 'VIP server of another place',
    body: { order_type: 'vip_server', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 7101 },
    message: /VIP server 7101 is not a VIP server of place 5001/i,
  },
  {
    name: 'inactive VIP server',
    body: { order_type: 'vip_server', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 7002 },
    message: /VIP server 7002 is not active/i,
  },
];

describe.each(transports)('platform validation (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('the fixtures hold invalid orders to check', () => {
    expect(invalidOrders.length).toBeGreaterThanOrEqual(3);
  });

  it.each(invalidOrders.map((body) => ({ body, label: JSON.stringify(body) })))(
    'fixture $label gets 422 PLATFORM_VALIDATION_FAILED naming what failed',
    async ({ body }) => {
      const t = await sandbox(transport);
      const before = t.state();
      const answer = await t.request('POST', ORDERS, { token: rich.token, body });
      expectError(answer, 422, 'PLATFORM_VALIDATION_FAILED');
      // The message names the username, place or pass at fault, not just "validation failed".
      const named = [body.platform_username, String(body.place_id), String(body.platform_pass_id ?? body.gamepass_id)];
      expect(
        named.some((value) => answer.json.message.includes(value)),
        answer.json.message,
      ).toBe(true);
      expect(t.state()).toEqual(before);
    },
  );

  it.each(platformRefusals)('$name gets 422 PLATFORM_VALIDATION_FAILED with a message that says so', async ({ body, message }) => {
    const t = await sandbox(transport);
    const before = t.state();
    const answer = await t.request('POST', ORDERS, { token: rich.token, body });
    expectError(answer, 422, 'PLATFORM_VALIDATION_FAILED');
    expect(answer.json.message).toMatch(message);
    expect(t.state()).toEqual(before);
  });

  it('accepts the gamepass_id alias for platform_pass_id', async () => {
    const t = await sandbox(transport);
    const created = dataOf(
      await t.request('POST', ORDERS, { token: rich.token, body: { platform_username: 'BuilderBob', place_id: 5001, gamepass_id: 9002 } }),
      201,
    );
    expect(created.invoice.order).toMatchObject({ order_type: 'gamepass', credit_amount: 1_500 });
    const order = dataOf(await t.request('GET', `${ORDERS}/${created.invoice.invoice_code}`, { token: rich.token })).order;
    expect(order).toMatchObject({ platform_pass_id: 9002, place_id: 5001, order_type: 'gamepass' });
  });

  it('refuses the alias together with platform_pass_id with 422 naming both', async () => {
    const t = await sandbox(transport);
    const before = t.state();
    const answer = await t.request('POST', ORDERS, {
      token: rich.token,
      body: { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001, gamepass_id: 9001 },
    });
    expectError(answer, 422, 'VALIDATION_FAILED');
    expect([...answer.json.error.fields].sort()).toEqual(['gamepass_id', 'platform_pass_id']);
    expect(t.state()).toEqual(before);
  });

  it('defaults order_type to gamepass', async () => {
    const t = await sandbox(transport);
    const created = dataOf(
      await t.request('POST', ORDERS, {
        token: rich.token,
        body: { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 },
      }),
      201,
    );
    expect(created.invoice.order.order_type).toBe('gamepass');
  });

  it('matches usernames as the platform does, ignoring case, and stores its spelling', async () => {
    const t = await sandbox(transport);
    const created = dataOf(
      await t.request('POST', ORDERS, {
        token: rich.token,
        body: { platform_username: 'builderBOB', place_id: 5001, platform_pass_id: 9001 },
      }),
      201,
    );
    expect(created.invoice.order.platform_username).toBe('BuilderBob');
  });
});
