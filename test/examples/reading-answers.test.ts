import { describe, expect, it } from 'vitest';
import { createClient, type Balance, type InvoiceStatus, type TopupClient } from 'topup';
import { createSandbox } from 'topup/mocks';

// The example of docs/library.md ("Tolerant types"), from here to the line of dashes: test/docs/examples.test.ts
// checks that the guide shows it word for word.

/** The balance as one line. The document shows no balance record, so each field may be missing. */
function describeBalance({ balance, formatted_balance, currency }: Balance): string {
  if (balance === undefined) return 'The server did not say what the balance is.';
  return `Balance: ${formatted_balance ?? `${balance} ${currency ?? ''}`.trim()}`;
}

/** Whether the customer can still pay: only a known `pending` is; any other status, or none, is not. */
function stillPayable(status: InvoiceStatus): boolean {
  return status.payment_status === 'pending' && status.is_final !== true;
}

/** The catalog as lines: the document guarantees every field of a credit package, so none needs a check. */
async function catalogLines(client: TopupClient): Promise<string[]> {
  const { packages } = await client.catalog.creditPackages();
  return packages.map((p) => `${p.code}  ${p.credit_amount} credits  ${p.formatted_price}`);
}

// ---------------------------------------------------------------------------------------------------------------------

/** A client of a sandbox that answers in full, or only what the document guarantees (lean). */
async function shop(lean: boolean) {
  const sandbox = await createSandbox({ rateLimit: false, lean });
  const client = createClient({ baseUrl: sandbox.baseUrl, token: sandbox.account('rich').token, fetch: sandbox.fetch });
  return { sandbox, client };
}

describe('reading tolerant answers (docs/library.md)', () => {
  it('shows the balance from a full server, and says so when a lean one leaves it out', async () => {
    const full = await shop(false);
    expect(describeBalance(await full.client.balance.get())).toBe('Balance: Rp 10.000.000');
    const lean = await shop(true);
    expect(describeBalance(await lean.client.balance.get())).toBe('The server did not say what the balance is.');
  });

  it('falls back to the amount and currency when the display text is missing', () => {
    expect(describeBalance({ balance: 1500, currency: 'IDR' })).toBe('Balance: 1500 IDR');
    expect(describeBalance({ balance: 1500 })).toBe('Balance: 1500');
  });

  it('treats only a pending invoice as payable, on a full and a lean server', async () => {
    for (const lean of [false, true]) {
      const { sandbox, client } = await shop(lean);
      const { invoice } = await client.orders.create({ platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 });
      expect(stillPayable(await client.invoices.status(invoice.invoice_code))).toBe(true);
      await sandbox.control.pay(invoice.invoice_code);
      expect(stillPayable(await client.invoices.status(invoice.invoice_code))).toBe(false);
    }
    expect(stillPayable({ payment_status: 'on_hold' })).toBe(false);
    expect(stillPayable({})).toBe(false);
  });

  it('reads the guaranteed catalog the same from a full and a lean server', async () => {
    const full = await catalogLines((await shop(false)).client);
    expect(full[0]).toMatch(/^CR80 {2}80 credits {2}Rp /);
    expect(await catalogLines((await shop(true)).client)).toEqual(full);
  });
});
