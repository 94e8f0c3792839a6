import type { AnyRecordRule, RecordOf } from './record-rules.js';
import { parseTimestamp } from '../../src/contract/money.js';
import { Store, type Counters } from './store.js';
import type { TableName } from './db.js';
import type { Table } from './table.js';
import { tokenDigest } from './token-digest.js';
import { magicPlatformSeed } from './magic-values.js';
import { DEMO_TOKEN } from './demo-token.js';

const t = (timestamp: string) => parseTimestamp(timestamp);

/** The demo tokens. They are public test values, like a payment provider's test cards. */
export const seedAccounts = [
  {
    id: 1,
    name: 'demo',
    username: 'demo',
    display_name: 'Demo Shop',
    email: 'demo@sandbox.topup.test',
    balance: 0,
    chat: null,
    token: { token: DEMO_TOKEN, mode: 'sandbox', name: 'Demo sandbox key' },
  },
  {
    id: 2,
    name: 'rich',
    username: 'rich',
    display_name: 'Rich Reseller',
    email: 'rich@sandbox.topup.test',
    balance: 10_000_000,
    chat: '700000001',
    token: { token: 'topup_live_rich_9Xk2mQ7vLp3RtY8wZc4bNs6d', mode: 'production', name: 'Rich bot key' },
  },
  {
    id: 3,
    name: 'broke',
    username: 'broke',
    display_name: 'Broke Bot',
    email: 'broke@sandbox.topup.test',
    balance: 0,
    chat: '700000002',
    token: { token: 'topup_live_broke_H5jK8pQ2wE7rT1yU4iO9aS3d', mode: 'production', name: 'Broke bot key' },
  },
  {
    id: 4,
    name: 'unlinked',
    username: 'unlinked',
    display_name: 'Unlinked Store',
    email: 'unlinked@sandbox.topup.test',
    balance: 250_000,
    chat: null,
    token: { token: 'topup_live_unlinked_Z3xC6vB9nM2qW5eR8tY1uI4o', mode: 'production', name: 'Web store key' },
  },
  // One account with both keys, and so two worlds: what the sandbox key makes lives apart from the live data (the
  // second record, `live_account_id`), as test and live mode do at Stripe. Both are named `dual`.
  {
    id: 5,
    name: 'dual',
    username: 'dual',
    display_name: 'Dual Mode Shop',
    email: 'dual@sandbox.topup.test',
    balance: 500_000,
    chat: '700000005',
    token: { token: 'topup_live_dual_Q8wE3rT6yU1iO4pA7sD2fG5h', mode: 'production', name: 'Dual live key' },
  },
  {
    id: 6,
    name: 'dual',
    username: 'dual',
    display_name: 'Dual Mode Shop',
    email: 'dual@sandbox.topup.test',
    balance: 0,
    chat: null,
    live_account_id: 5,
    token: { token: 'topup_test_dual_J2kL5zX8cV1bN4mQ7wE0rT3y', mode: 'sandbox', name: 'Dual sandbox key' },
  },
] as const;

/**
 * The fixture accounts' names: `demo` (sandbox key), `rich`, `broke` and `unlinked` (production keys), and `dual`
 * (both keys: a live world and a test world).
 */
export type FixtureAccountName = (typeof seedAccounts)[number]['name'];

/** The seed of the fixture account of this name (its live world for `dual`, unless the sandbox mode is asked for). */
export function seedAccount<Name extends FixtureAccountName>(
  name: Name,
  mode?: 'sandbox' | 'production',
): Extract<(typeof seedAccounts)[number], { name: Name }> {
  return seedAccounts.find((account) => account.name === name && (mode === undefined || account.token.mode === mode)) as Extract<
    (typeof seedAccounts)[number],
    { name: Name }
  >;
}

/** A token of the `rich` account that was revoked: it must get 401 like any unknown token. */
export const REVOKED_TOKEN = 'topup_live_revoked_P0oI9uY8tR7eW6qA5sD4fG3h';

const SEED_TIME = t('2026-01-15 09:00:00');

/** The fake game platform that orders are validated against. */
export const platformSeed = {
  users: [
    { id: 1001, username: 'BuilderBob' },
    { id: 1002, username: 'PixelPiper' },
    { id: 1003, username: 'NoPlaces_Nina' },
    magicPlatformSeed.user,
  ],
  places: [{ id: 5001, owner_id: 1001, name: "Bob's Obby" }, { id: 5002, owner_id: 1002, name: 'Piper Tycoon' }, magicPlatformSeed.place],
  passes: [
    { id: 9001, place_id: 5001, name: 'Speed Coil', price: 100, for_sale: true },
    { id: 9002, place_id: 5001, name: 'VIP Lounge', price: 1_500, for_sale: true },
    { id: 9003, place_id: 5001, name: 'Retired Hat', price: 250, for_sale: false },
    { id: 9004, place_id: 5001, name: 'Mega Bundle', price: 6_000, for_sale: true },
    { id: 9101, place_id: 5002, name: 'Double Cash', price: 50, for_sale: true },
    // The magic test values (rules/magic-values.ts): orders for these end a chosen way by themselves.
    ...magicPlatformSeed.passes,
  ],
  vipServers: [
    { id: 7001, place_id: 5001, name: 'Bob Private Server', price: 200, active: true },
    { id: 7002, place_id: 5001, name: 'Old Private Server', price: 150, active: false },
    { id: 7101, place_id: 5002, name: 'Piper Private Server', price: 100, active: true },
  ],
} as const;

const creditPackages = [
  { code: 'CR80', name: '80 Credits', credit_amount: 80, price: 10_000 },
  { code: 'CR400', name: '400 Credits', credit_amount: 400, price: 48_000 },
  { code: 'CR800', name: '800 Credits', credit_amount: 800, price: 94_000 },
  { code: 'CR1700', name: '1,700 Credits', credit_amount: 1_700, price: 195_000 },
  { code: 'CR4500', name: '4,500 Credits', credit_amount: 4_500, price: 499_000 },
  { code: 'CR10000', name: '10,000 Credits', credit_amount: 10_000, price: 1_080_000 },
  { code: 'CR22500', name: '22,500 Credits', credit_amount: 22_500, price: 2_400_000 },
];

const paymentMethods = [
  {
    code: 'invoice',
    name: 'Invoice',
    type: 'invoice',
    description: 'Pay later from the invoice page. The default, and the only method for sandbox tokens.',
    min_amount: 1_000,
    max_amount: 50_000_000,
    active: true,
  },
  {
    code: 'balance',
    name: 'Account balance',
    type: 'balance',
    description: 'Paid at once from your balance. Chat bots only: needs X-Chat-User-ID of the linked chat account.',
    min_amount: 1_000,
    max_amount: 50_000_000,
    active: true,
  },
  {
    code: 'qris',
    name: 'QRIS',
    type: 'gateway',
    description: 'Scan a QR code with any banking or e-wallet app.',
    min_amount: 1_000,
    max_amount: 10_000_000,
    active: true,
  },
  {
    code: 'bank_transfer',
    name: 'Bank transfer (virtual account)',
    type: 'gateway',
    description: 'Transfer to a one-time virtual account number.',
    min_amount: 10_000,
    max_amount: 50_000_000,
    active: true,
  },
  {
    code: 'card',
    name: 'Credit card',
    type: 'gateway',
    description: 'Temporarily unavailable.',
    min_amount: 10_000,
    max_amount: 20_000_000,
    active: false,
  },
] as const;

const categories = ['guide', 'news', 'promo'] as const;
const articleTitles = [
  'How to create a pass for your top-up',
  'Paying an invoice step by step',
  'New: bank transfer by virtual account',
  'Weekend promo: 10 % off large orders',
  'Linking your chat account for balance payments',
  'Why your order is still processing',
  'VIP server orders explained',
  'Keeping your API token safe',
  'Rate limits for bot authors',
  'Idempotency keys: never pay twice',
  'Reading your balance transactions',
  'Shop hours during the holidays',
];

/** What an account's seeded balance is, in its transactions: one credit for all of it, before anything else. */
export const OPENING_BALANCE_DESCRIPTION = 'Opening balance';

/**
 * Fills an empty store with the fixtures. Every seeded balance comes with the transaction that explains it (the
 * account's first, from the transaction sequence), so a balance never stands without its history.
 * The fixtures are built and checked once per process; each store gets copies (Table.insertCheckedByCreate), which made a
 * fresh `createSandbox()` about twice as quick as building them again.
 */
export async function seed(store: Store): Promise<void> {
  seedTemplate ??= buildSeedTemplate();
  const template = await seedTemplate;
  for (const [name, records] of template.tables) {
    const table = store.db[name] as unknown as { insertCheckedByCreate(values: unknown): Promise<unknown> };
    for (const record of records) await table.insertCheckedByCreate(record);
  }
  store.counters = { ...template.counters };
}

let seedTemplate: Promise<{ tables: [TableName, readonly unknown[]][]; counters: Counters }> | undefined;

async function buildSeedTemplate() {
  const store = new Store();
  await seedFixtures(store);
  const tables = (Object.keys(store.db) as TableName[]).map((name): [TableName, readonly unknown[]] => [name, store.db[name].all()]);
  return { tables, counters: { ...store.counters } };
}

/** A seed record into its table, checked as any insert is. */
function insert<S extends AnyRecordRule>(table: Table<S>, values: RecordOf<S>): Promise<unknown> {
  return table.insert(values);
}

async function seedFixtures(store: Store): Promise<void> {
  const { db } = store;
  for (const a of seedAccounts) {
    await insert(db.accounts, {
      id: a.id,
      name: a.name,
      username: a.username,
      display_name: a.display_name,
      email: a.email,
      balance: a.balance,
      balance_updated_at: SEED_TIME,
      created_at: SEED_TIME,
      ...('live_account_id' in a ? { live_account_id: a.live_account_id } : {}),
    });
    await insert(db.tokens, {
      token_sha256: tokenDigest(a.token.token),
      mode: a.token.mode,
      name: a.token.name,
      account_id: a.id,
      revoked: false,
      last_used_at: null,
    });
    if (a.chat !== null) await insert(db.chatLinks, { account_id: a.id, chat_user_id: a.chat, linked_at: SEED_TIME });
    if (a.balance > 0) {
      await insert(db.transactions, {
        id: store.nextTransactionId(),
        account_id: a.id,
        type: 'credit',
        amount: a.balance,
        balance_after: a.balance,
        description: OPENING_BALANCE_DESCRIPTION,
        reference: null,
        created_at: SEED_TIME,
      });
    }
  }
  await insert(db.tokens, {
    token_sha256: tokenDigest(REVOKED_TOKEN),
    account_id: 2,
    mode: 'production',
    name: 'Old key (revoked)',
    revoked: true,
    last_used_at: SEED_TIME,
  });

  for (const u of platformSeed.users) await insert(db.platformUsers, u);
  for (const p of platformSeed.places) await insert(db.platformPlaces, p);
  for (const p of platformSeed.passes) await insert(db.platformPasses, p);
  for (const v of platformSeed.vipServers) await insert(db.vipServers, v);

  // From the name, not credit_amount.toLocaleString(): the first call loads ICU's number formats, ~13 ms of every seed.
  for (const [i, p] of creditPackages.entries()) {
    await insert(db.creditPackages, {
      ...p,
      currency: 'IDR',
      description: `${p.name.toLowerCase()}, delivered to your game account.`,
      sort_order: (i + 1) * 10,
      active: true,
    });
  }
  await insert(db.creditPackages, {
    code: 'CR50000',
    name: '50,000 Credits',
    credit_amount: 50_000,
    price: 5_250_000,
    currency: 'IDR',
    description: 'Retired package.',
    sort_order: 999,
    active: false,
  });

  for (const [i, m] of paymentMethods.entries()) await insert(db.paymentMethods, { ...m, sort_order: (i + 1) * 10 });

  for (const [i, title] of articleTitles.entries()) {
    const published = t('2026-01-01 08:00:00') + i * 86_400_000;
    await insert(db.articles, {
      slug: slugOf(title),
      title,
      category: categories[i % categories.length]!,
      excerpt: `${title}: what you need to know.`,
      content: `# ${title}\n\nThis sandbox article is a fixed test value.\n`,
      author: 'Topup Team',
      tags: [categories[i % categories.length]!, 'sandbox'],
      status: 'published',
      published_at: published,
      updated_at: published,
    });
  }
  await insert(db.articles, {
    slug: 'draft-upcoming-features',
    title: 'Upcoming features',
    category: 'news',
    excerpt: 'Not published yet.',
    content: 'Draft.',
    author: 'Topup Team',
    tags: ['news'],
    status: 'draft',
    published_at: SEED_TIME,
    updated_at: SEED_TIME,
  });
  await insert(db.articles, {
    slug: 'unpublished-old-promo',
    title: 'Old promo',
    category: 'promo',
    excerpt: 'Withdrawn.',
    content: 'Withdrawn.',
    author: 'Topup Team',
    tags: ['promo'],
    status: 'draft',
    published_at: SEED_TIME,
    updated_at: SEED_TIME,
  });
}

function slugOf(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
