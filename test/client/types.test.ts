import { describe, expect, expectTypeOf, it } from 'vitest';
import { createSandbox, FaultConfigError, type FaultRule, type FixtureAccount } from '../../mocks/index.js';
import {
  createClient,
  TopupError,
  type CreateOrderRequest,
  type ErrorCode,
  type InvoiceStatus,
  type Order,
  type PaymentMethodCode,
  type TopupErrorCode,
} from '../../src/index.js';

// These tests are checked by `tsc` (npm test runs it before vitest): each @ts-expect-error must be an error.
describe('types as strict as the contract', () => {
  it('an order body names its pass by platform_pass_id or gamepass_id', async () => {
    const byId: CreateOrderRequest = { platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 };
    const byAlias: CreateOrderRequest = { platform_username: 'BuilderBob', place_id: 5001, gamepass_id: 9001 };
    // @ts-expect-error: an order without a pass id does not compile
    const withoutPass: CreateOrderRequest = { platform_username: 'BuilderBob', place_id: 5001 };
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: sandbox.fetch });
    for (const body of [byId, byAlias]) expect((await client.orders.create(body)).invoice.invoice_code).toMatch(/^INV/);
    // The sandbox refuses at run time what the type refuses at compile time.
    await expect(client.orders.create(withoutPass)).rejects.toMatchObject({
      status: 422,
      fields: expect.arrayContaining(['platform_pass_id']),
    });
  });

  it('payment methods: the documented codes, and any other string', () => {
    expectTypeOf<'invoice'>().toExtend<PaymentMethodCode>();
    expectTypeOf<'balance'>().toExtend<PaymentMethodCode>();
    expectTypeOf<'some_gateway'>().toExtend<PaymentMethodCode>();
    // @ts-expect-error: a number is not a payment method code
    const notACode: PaymentMethodCode = 7;
    expect(notACode).toBe(7);
  });

  it('error codes: the documented union, open to codes a newer server sends', () => {
    expectTypeOf<TopupError['code']>().toEqualTypeOf<TopupErrorCode | undefined>();
    expectTypeOf<ErrorCode>().toExtend<TopupErrorCode>();
    expectTypeOf<'SOMETHING_NEW'>().toExtend<TopupErrorCode>();
    expect(new TopupError('x', { code: 'SOMETHING_NEW' }).code).toBe('SOMETHING_NEW');
  });

  // An open enum keeps its known values in its type: an editor offers them, and any other string still fits.
  it('status fields name their known values, and stay open to others', async () => {
    // Exclude, not NonNullable: `T & {}` lets TypeScript fold the literals into `string & {}`.
    type Paid = Exclude<InvoiceStatus['payment_status'], undefined>;
    expectTypeOf<Extract<Paid, 'paid'>>().toEqualTypeOf<'paid'>();
    expectTypeOf<Extract<Paid, 'expired'>>().toEqualTypeOf<'expired'>();
    expectTypeOf<'a_status_of_tomorrow'>().toExtend<Paid>();
    expectTypeOf<Extract<Order['status'], 'processing'>>().toEqualTypeOf<'processing'>();
    expectTypeOf<Extract<Order['order_type'], 'gamepass'>>().toEqualTypeOf<'gamepass'>();
    // @ts-expect-error: a number is no status
    const notAStatus: Paid = 7;
    expect(notAStatus).toBe(7);
    const sandbox = await createSandbox({ rateLimit: false });
    const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: sandbox.fetch });
    const { invoice } = await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
    const status = await client.invoices.status(invoice.invoice_code);
    const shown: Paid | undefined = status.payment_status;
    expect(shown).toBe('pending');
  });

  // Each kind with its own fields, routes among the operationIds, and a rate or a count: what the sandbox checks.
  it('fault rules are typed as the sandbox checks them', async () => {
    const fine: FaultRule[] = [
      { kind: 'latency', latency_ms: [100, 200], rate: 0.5, routes: ['getBalance'] },
      { kind: 'error', status: 503, retry_after: 1, times: 1, routes: ['createOrder'] },
      { kind: 'rate_limit', after: 2 },
      { kind: 'drop_after', rate: 0.25 },
    ];
    // @ts-expect-error: no rate, times or after: the rule would never be told when to fire
    const noWhen: FaultRule = { kind: 'latency', latency_ms: 2000, routes: ['getBalance'] };
    // @ts-expect-error: latency_ms belongs to latency rules
    const stray: FaultRule = { kind: 'error', rate: 1, latency_ms: 5 };
    // @ts-expect-error: 418 is no fault status
    const teapot: FaultRule = { kind: 'error', rate: 1, status: 418 };
    const sandbox = await createSandbox();
    sandbox.faults.configure({ rules: fine });
    expect(sandbox.faults.config.rules).toHaveLength(4);
    for (const refused of [noWhen, stray, teapot]) expect(() => sandbox.faults.configure({ rules: [refused] })).toThrow(FaultConfigError);
  });

  it('fixture accounts are typed by name', async () => {
    const sandbox = await createSandbox();
    expectTypeOf(sandbox.account('rich')).toEqualTypeOf<FixtureAccount>();
    expect(sandbox.account('rich').balance).toBe(10_000_000);
    // @ts-expect-error: no fixture account is called 'nobody'
    expect(() => sandbox.account('nobody')).toThrow("The sandbox's fixtures have no account named 'nobody'.");
  });
});
