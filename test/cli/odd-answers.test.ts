import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useAnswerServer } from '../support/answer-server.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli, type RunResult } from './run-cli.js';

/**
 * A server we did not write, answering what the interface document allows but does not show: it guarantees nothing
 * of an article's detail, the dashboard, orders, invoices, deposits, transactions, the profile, the balance or the
 * health record, so any of their fields may be null, a number, a text or an object. Every command shows what it got as
 * it is (a list or object as its JSON) and never fails with a TypeError; and a config.json edited by hand into
 * something that is not a profile is one sentence naming the file and the profile.
 */

/** The body every request gets next (set by each run), and where. */
const server = useAnswerServer();
let config: { dir: string; cleanup: () => void };

beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

/** One run against the server answering a success envelope with `data`; on a terminal without colour when `tty`. */
async function run(data: unknown, args: string[], tty = false): Promise<RunResult> {
  server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok', data }) };
  return runCli(config.dir, [...args, '--base-url', server.url, ...(tty ? ['--no-color'] : [])], {
    tty,
    env: { TOPUP_TOKEN: 'topup_test_odd_answers' },
  });
}

/** A run that worked: exit 0, and no trace of a JavaScript error anywhere. */
function expectShown(result: RunResult): void {
  expect(result.err).not.toMatch(/Cannot read properties|is not a function|TypeError/);
  expect(result.out).not.toMatch(/\[object Object\]|undefined/);
  expect(result.code, result.err).toBe(0);
}

/** The lines of piped `key: value` output, by key. */
function fieldsOf(out: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const at = line.indexOf(': ');
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
  }
  return fields;
}

const SLUG = 'odd-article';

describe('articles show: an article whose fields are not what our sandbox sends', () => {
  const fields = 'title: Odd\nslug: odd-article\ncategory: -\nauthor: -\ntags: -\npublished_at: -\nupdated_at: -\narticle_url: -\n';

  it('content null: the fields alone, as when the server sends no content', async () => {
    const result = await run({ article: { title: 'Odd', slug: SLUG, content: null } }, ['articles', 'show', SLUG]);
    expectShown(result);
    expect(result.out).toBe(fields);
  });

  it.each([
    ['a number', 42, '42'],
    ['a boolean', false, 'false'],
    ['an object', { markdown: '# Hi' }, '{"markdown":"# Hi"}'],
    ['a list', ['# Hi', 'there'], '["# Hi","there"]'],
  ])('content that is %s: shown as it is, under the fields', async (_kind, content, shown) => {
    const result = await run({ article: { title: 'Odd', slug: SLUG, content } }, ['articles', 'show', SLUG]);
    expectShown(result);
    expect(result.out).toBe(`${fields}\n${shown}\n`);
  });

  it.each([
    ['a text', 'guide, token', 'guide, token'],
    ['an object', { main: 'guide' }, '{"main":"guide"}'],
    ['a number', 7, '7'],
  ])('tags that are %s: shown as they are', async (_kind, tags, shown) => {
    for (const tty of [false, true]) {
      const result = await run({ article: { title: 'Odd', slug: SLUG, tags, content: 'Body.' } }, ['articles', 'show', SLUG], tty);
      expectShown(result);
      expect(result.out).toMatch(new RegExp(`^tags${tty ? ' +' : ': '}${shown.replace(/[{}]/g, '\\$&')}$`, 'm'));
      expect(result.out.endsWith('\nBody.\n')).toBe(true);
    }
  });

  it('a list of tags holding other than texts: joined, each item as it is', async () => {
    const result = await run({ article: { title: 'Odd', slug: SLUG, tags: ['guide', 3, null, { a: 1 }] } }, ['articles', 'show', SLUG]);
    expectShown(result);
    expect(fieldsOf(result.out).tags).toBe('guide,3,null,{"a":1}');
  });

  it('times that are not texts: as they are, piped and on a terminal', async () => {
    const article = { title: 'Odd', slug: SLUG, published_at: 1767225600, updated_at: { at: 'today' } };
    const piped = await run({ article }, ['articles', 'show', SLUG]);
    expectShown(piped);
    expect(fieldsOf(piped.out)).toMatchObject({ published_at: '1767225600', updated_at: '{"at":"today"}' });
    const shown = await run({ article }, ['articles', 'show', SLUG], true);
    expectShown(shown);
    expect(shown.out).toMatch(/^published +1767225600$/m);
    expect(shown.out).toMatch(/^updated +\{"at":"today"\}$/m);
  });
});

describe('dashboard: recent_orders that is not a list', () => {
  it.each([
    ['a text', 'none yet', 'none yet'],
    ['an object', { count: 0 }, '{"count":0}'],
    ['a number', 0, '0'],
  ])('%s: the rest of the dashboard, and recent_orders as it is', async (_kind, recent, shown) => {
    const data = { balance: 50000, formatted_balance: 'Rp 50.000', currency: 'IDR', pending_invoices: 1, recent_orders: recent };
    const piped = await run(data, ['dashboard']);
    expectShown(piped);
    expect(fieldsOf(piped.out)).toMatchObject({ balance: '50000', currency: 'IDR', pending_invoices: '1', recent_orders: shown });
    expect(piped.out).not.toContain('recent_order:');
    const terminal = await run(data, ['dashboard'], true);
    expectShown(terminal);
    expect(terminal.out).toMatch(/^balance +Rp 50\.000$/m);
    expect(terminal.out.endsWith(`Recent orders\n${shown}\n`)).toBe(true);
  });

  it('null: a dash, as when the server does not say, not "No orders yet."', async () => {
    const terminal = await run({ balance: 50000, recent_orders: null }, ['dashboard'], true);
    expectShown(terminal);
    expect(terminal.out.endsWith('Recent orders\n-\n')).toBe(true);
  });
});

describe('dashboard: order counts that are not what our sandbox sends', () => {
  const base = { balance: 50000, formatted_balance: 'Rp 50.000', currency: 'IDR', pending_invoices: 0, recent_orders: [] };

  it('a status this version does not know, and a count that is not a number: each shown under its own name', async () => {
    const orders = { total: 6, pending: 'several', completed: 2, failed: 0, refunded: 1, on_hold: { since: 'May' } };
    const piped = await run({ ...base, orders }, ['dashboard']);
    expectShown(piped);
    expect(fieldsOf(piped.out)).toMatchObject({
      orders_total: '6',
      orders_pending: 'several',
      orders_processing: '-',
      orders_completed: '2',
      orders_failed: '0',
      orders_cancelled: '-',
      orders_refunded: '1',
      orders_on_hold: '{"since":"May"}',
    });
    const terminal = await run({ ...base, orders }, ['dashboard'], true);
    expectShown(terminal);
    expect(terminal.out).toMatch(/^orders +6 \(several pending, 2 completed, 1 refunded, \{"since":"May"\} on_hold\)$/m);
  });

  it("piped, a status name is one word of its key, never another line's key: each count once, under a key of its own", async () => {
    const orders = { total: 9, pending: 1, 'on hold': 2, 'on-hold': 3, 'total: 999 #': 4, 'pending\tx': 5 };
    const piped = await run({ ...base, orders }, ['dashboard']);
    expectShown(piped);
    const lines = piped.out.split('\n').filter((line) => line.startsWith('orders'));
    expect(lines).toEqual([
      'orders_total: 9',
      'orders_pending: 1',
      'orders_processing: -',
      'orders_completed: -',
      'orders_failed: -',
      'orders_cancelled: -',
      'orders_on_hold: 2',
      'orders_on_hold_2: 3',
      'orders_total__999__: 4',
      'orders_pending_x09x: 5',
    ]);
  });

  it.each([
    ['a text', 'see the website', 'see the website'],
    ['a list', [3, 1], '[3,1]'],
    ['a number', 4, '4'],
  ])('counts that are %s: shown as they are, as orders', async (_kind, orders, shown) => {
    const piped = await run({ ...base, orders }, ['dashboard']);
    expectShown(piped);
    expect(fieldsOf(piped.out)).toMatchObject({ orders: shown, orders_total: '-', orders_pending: '-' });
    const terminal = await run({ ...base, orders }, ['dashboard'], true);
    expectShown(terminal);
    const line = terminal.out.split('\n').find((each) => each.startsWith('orders '));
    expect(line?.replace(/^orders +/, '')).toBe(shown);
  });
});

/** Every command that shows a time, with that time sent as a number. */
const timed: [string, string[], unknown][] = [
  ['health', ['health'], { status: 'ok', time: 1767225600 }],
  ['articles list', ['articles', 'list'], { articles: [{ slug: SLUG, title: 'Odd', category: 'guide', published_at: 1767225600 }] }],
  ['me', ['me'], { user: { username: 'odd', created_at: 1767225600 } }],
  ['balance', ['balance'], { balance: 5, updated_at: 1767225600 }],
  ['dashboard', ['dashboard'], { recent_orders: [{ invoice_code: 'INV1', created_at: 1767225600 }] }],
  ['transactions', ['transactions'], { transactions: [{ id: 1, created_at: 1767225600 }] }],
  ['deposits list', ['deposits', 'list'], { deposits: [{ invoice_code: 'INV1', created_at: 1767225600 }] }],
  ['deposits show', ['deposits', 'show', 'INV1'], { deposit: { invoice_code: 'INV1', paid_at: 1767225600 } }],
  ['orders list', ['orders', 'list'], { orders: [{ invoice_code: 'INV1', created_at: 1767225600 }] }],
  ['orders show', ['orders', 'show', 'INV1'], { order: { invoice_code: 'INV1', completed_at: 1767225600 } }],
  ['invoices show', ['invoices', 'show', 'INV1'], { invoice: { invoice_code: 'INV1', expires_at: 1767225600 } }],
  ['invoices status', ['invoices', 'status', 'INV1'], { invoice_code: 'INV1', paid_at: 1767225600 }],
];

describe('a time that is not a text is shown as it is, in every command that shows one', () => {
  it.each(timed)('%s', async (_name, args, data) => {
    for (const tty of [false, true]) {
      const result = await run(data, args, tty);
      expectShown(result);
      expect(result.out).toContain('1767225600');
    }
  });
});

describe('on a terminal without colour, a status or display amount that is not a text', () => {
  it.each([
    ['orders show: a status that is a number', ['orders', 'show', 'INV1'], { order: { invoice_code: 'INV1', status: 3 } }, /^status +3$/m],
    [
      'invoices show: a payment status that is an object',
      ['invoices', 'show', 'INV1'],
      { invoice: { invoice_code: 'INV1', payment_status: { code: 'paid' } } },
      /^status +\{"code":"paid"\}$/m,
    ],
    [
      'invoices status: an order status that is a list',
      ['invoices', 'status', 'INV1'],
      { invoice_code: 'INV1', order_status: ['done'] },
      /^order +\["done"\]$/m,
    ],
    [
      'deposits show: a formatted amount that is a number',
      ['deposits', 'show', 'INV1'],
      { deposit: { invoice_code: 'INV1', amount: 5000, formatted_amount: 5000 } },
      /^amount +5000$/m,
    ],
    [
      'balance: a formatted balance that is an object',
      ['balance'],
      { balance: 5000, formatted_balance: { text: 'Rp 5.000' } },
      /^balance +\{"text":"Rp 5\.000"\}$/m,
    ],
  ])('%s: shown as it is', async (_name, args, data, shown) => {
    const result = await run(data, args, true);
    expectShown(result);
    expect(result.out).toMatch(shown);
  });
});

describe('transactions on a terminal: an amount the server signed itself', () => {
  it.each([
    ['a credit with a negative amount', { type: 'credit', amount: -500, currency: 'IDR' }, '-Rp 500'],
    ['a debit with a negative amount', { type: 'debit', amount: -500, currency: 'IDR' }, '-Rp 500'],
    ['a debit whose display text is signed', { type: 'debit', amount: 500, formatted_amount: '-Rp 500' }, '-Rp 500'],
    ['a credit whose display text is signed', { type: 'credit', amount: 500, formatted_amount: '+Rp 500' }, '+Rp 500'],
    ['a debit as our sandbox sends it', { type: 'debit', amount: 500, currency: 'IDR' }, '-Rp 500'],
  ])('%s: one sign, the right one', async (_name, fields, shown) => {
    const result = await run({ transactions: [{ id: 'TRX1', ...fields }] }, ['transactions'], true);
    expectShown(result);
    const row = result.out.split('\n').find((line) => line.startsWith('TRX1'));
    expect(row?.split(/ {2,}/)).toContain(shown);
    expect(row).not.toMatch(/[-+]{2}|\+-|-\+/);
  });
});

describe('a config.json edited by hand into something that is not a profile', () => {
  /** `topup balance` with this config.json; the answer it would get is a good one. */
  async function balanceWith(configJson: unknown): Promise<RunResult> {
    writeFileSync(join(config.dir, 'config.json'), JSON.stringify(configJson));
    server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok', data: { balance: 5 } }) };
    return runCli(config.dir, ['balance'], { env: { TOPUP_TOKEN: 'topup_test_odd_answers' } });
  }

  it.each([
    ['a profile that is null', { profiles: { x: null }, current_profile: 'x' }, "profile 'x' is null instead of an object"],
    [
      'a profile that is a text',
      { profiles: { x: 'http://127.0.0.1' }, current_profile: 'x' },
      "profile 'x' is a string instead of an object",
    ],
    ['a profile that is a list', { profiles: { x: [] }, current_profile: 'x' }, "profile 'x' is a list instead of an object"],
    [
      'a base_url that is a number',
      { profiles: { x: { base_url: 8080 } }, current_profile: 'x' },
      "the base_url of profile 'x' is a number instead of a URL",
    ],
    [
      'a base_url that is an object',
      { profiles: { x: { base_url: {} } }, current_profile: 'x' },
      "the base_url of profile 'x' is an object instead of a URL",
    ],
    ['a profile without a base_url', { profiles: { x: { mode: 'sandbox' } }, current_profile: 'x' }, "profile 'x' has no base_url"],
    ['profiles that is a text', { profiles: 'x', current_profile: 'x' }, 'profiles is a string instead of an object'],
    [
      'profiles that is a list',
      { profiles: [{ base_url: 'http://127.0.0.1' }], current_profile: '0' },
      'profiles is a list instead of an object',
    ],
    ['profiles that is null', { profiles: null }, 'profiles is null instead of an object'],
    [
      'a current_profile that is a number',
      { profiles: { x: { base_url: 'http://127.0.0.1' } }, current_profile: 7 },
      'current_profile is a number instead of a profile name',
    ],
  ])('%s: one sentence naming the file (exit 1)', async (_name, configJson, problem) => {
    const result = await balanceWith(configJson);
    expect(result.err).toBe(`Error: ${join(config.dir, 'config.json')}: ${problem}; fix it or delete it.\n`);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
  });

  it('a broken profile that is not the one used is said too, by the command that lists every profile', async () => {
    writeFileSync(
      join(config.dir, 'config.json'),
      JSON.stringify({ profiles: { good: { base_url: server.url }, x: null }, current_profile: 'good' }),
    );
    const result = await runCli(config.dir, ['auth', 'status']);
    expect(result.err).toBe(`Error: ${join(config.dir, 'config.json')}: profile 'x' is null instead of an object; fix it or delete it.\n`);
    expect(result.code).toBe(1);
  });
});

describe('a credentials.json edited by hand into something that is not a token', () => {
  /** A good profile 'x' on the test server, and this credentials.json beside it. */
  function withCredentials(credentialsJson: unknown): void {
    writeFileSync(
      join(config.dir, 'config.json'),
      JSON.stringify({ profiles: { x: { base_url: server.url, mode: 'sandbox' } }, current_profile: 'x' }),
    );
    writeFileSync(join(config.dir, 'credentials.json'), JSON.stringify(credentialsJson), { mode: 0o600 });
    server.answer = { status: 200, body: JSON.stringify({ success: true, message: 'ok', data: { balance: 5 } }) };
  }

  it.each([
    ['a number', { tokens: { x: 42 } }, "the token of profile 'x' is a number instead of a token"],
    ['an object', { tokens: { x: {} } }, "the token of profile 'x' is an object instead of a token"],
    ['a list', { tokens: { x: ['topup_test_x'] } }, "the token of profile 'x' is a list instead of a token"],
    ['null', { tokens: { x: null } }, "the token of profile 'x' is null instead of a token"],
    ['an empty text', { tokens: { x: '' } }, "the token of profile 'x' is empty instead of a token"],
  ])(
    'a token that is %s: one sentence naming the file, for every command that reads it (exit 1)',
    async (_name, credentialsJson, problem) => {
      withCredentials(credentialsJson);
      const said = `${join(config.dir, 'credentials.json')}: ${problem}; log in again (topup auth login --profile x) or fix the file.`;
      for (const args of [['balance'], ['auth', 'status'], ['auth', 'token'], ['doctor']]) {
        const result = await runCli(config.dir, args);
        expect({ args, err: result.err, code: result.code, out: result.out }).toEqual({ args, err: `Error: ${said}\n`, code: 1, out: '' });
      }
      const json = await runCli(config.dir, ['--json', 'balance']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.err)).toMatchObject({ success: false, message: said });
      expect(server.requests).toBe(0);
    },
  );

  it.each([
    ['a text', { tokens: 'topup_test_x' }, 'tokens is a string instead of an object'],
    ['null', { tokens: null }, 'tokens is null instead of an object'],
  ])('tokens that is %s: one sentence naming the file (exit 1)', async (_name, credentialsJson, problem) => {
    withCredentials(credentialsJson);
    const result = await runCli(config.dir, ['balance']);
    expect(result.err).toBe(`Error: ${join(config.dir, 'credentials.json')}: ${problem}; fix it or delete it.\n`);
    expect(result.code).toBe(1);
  });

  it('auth logout forgets a broken token with its profile', async () => {
    withCredentials({ tokens: { x: 42 } });
    const result = await runCli(config.dir, ['auth', 'logout', '--profile', 'x']);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(config.dir, 'credentials.json'), 'utf8'))).toEqual({ tokens: {} });
  });
});
