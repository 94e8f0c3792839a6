import { ANSI_ESCAPE } from '../support/cli-assertions.js';
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from './read-harness.js';
import { EMBEDDED_NOTICE, expectUsageError, LEAN } from '../support/cli-assertions.js';

let h: Harness;
useHarness((created) => {
  h = created;
});

const PAGE_1 = [
  '2026-01-12T08:00:00Z\tpromo\tshop-hours-during-the-holidays\tShop hours during the holidays',
  '2026-01-11T08:00:00Z\tnews\treading-your-balance-transactions\tReading your balance transactions',
  '2026-01-10T08:00:00Z\tguide\tidempotency-keys-never-pay-twice\tIdempotency keys: never pay twice',
  '2026-01-09T08:00:00Z\tpromo\trate-limits-for-bot-authors\tRate limits for bot authors',
  '2026-01-08T08:00:00Z\tnews\tkeeping-your-api-token-safe\tKeeping your API token safe',
  '2026-01-07T08:00:00Z\tguide\tvip-server-orders-explained\tVIP server orders explained',
  '2026-01-06T08:00:00Z\tpromo\twhy-your-order-is-still-processing\tWhy your order is still processing',
  '2026-01-05T08:00:00Z\tnews\tlinking-your-chat-account-for-balance-payments\tLinking your chat account for balance payments',
  '2026-01-04T08:00:00Z\tguide\tweekend-promo-10-off-large-orders\tWeekend promo: 10 % off large orders',
  '2026-01-03T08:00:00Z\tpromo\tnew-bank-transfer-by-virtual-account\tNew: bank transfer by virtual account',
];
const PAGE_2 = [
  '2026-01-02T08:00:00Z\tnews\tpaying-an-invoice-step-by-step\tPaying an invoice step by step',
  '2026-01-01T08:00:00Z\tguide\thow-to-create-a-pass-for-your-top-up\tHow to create a pass for your top-up',
];
const lines = (rows: string[]) => rows.map((r) => `${r}\n`).join('');

describe('argument parsing', () => {
  it.each([
    { args: ['articles', 'list', '--per-page', '5'], err: /unknown option '--per-page'/ },
    { args: ['articles', 'list', '--page', 'last'], err: /--page must be a whole number\./ },
    { args: ['articles', 'list', '--all', '--page', '2'], err: /cannot be used with option/ },
    { args: ['articles', 'list', '--category', 'x'.repeat(65)], err: /A category is 1 to 64 characters\./ },
    { args: ['articles', 'show', 'Not A Slug'], err: /A slug is lower-case letters and digits joined by hyphens/ },
    { args: ['articles', 'show'], err: /missing required argument 'slug'/ },
    { args: ['articles', 'read', 'x'], err: /unknown command 'read'/ },
  ])('$args → exit 2 with one line', async ({ args, err }) => {
    const result = await h.runEmbedded(args);
    expectUsageError(result, err);
  });
});

describe('topup articles list (embedded sandbox)', () => {
  it.each([
    { args: [], out: lines(PAGE_1) },
    { args: ['--page', '2'], out: lines(PAGE_2) },
    { args: ['--page', '3'], out: '' },
    // A lean server sends no pagination: --all can only show the first page (and says so, below).
    { args: ['--all'], out: lines(LEAN ? PAGE_1 : [...PAGE_1, ...PAGE_2]) },
    { args: ['--category', 'guide', '--all'], out: lines([...PAGE_1, ...PAGE_2].filter((r) => r.includes('\tguide\t'))) },
  ])('piped $args: TSV rows, no header', async ({ args, out }) => {
    const result = await h.runEmbedded(['articles', 'list', ...args]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(out);
    expect(result.err).toMatch(/^Using the embedded offline sandbox/);
  });

  it('terminal: aligned columns, and a next-page hint', async () => {
    // 100 columns: the slug keeps its width (it is what `articles show` takes), the title is shortened.
    const result = await h.runEmbedded(['articles', 'list', '--page', '1', '--no-color'], { tty: true, columns: 100 });
    const out = result.out.split('\n');
    expect(out[0]).toBe('PUBLISHED                CATEGORY  SLUG                                            TITLE');
    expect(out[1]).toBe('2026-01-12 08:00 +00:00  promo     shop-hours-during-the-holidays                  Shop hours durin…');
    expect(Math.max(...out.map((line) => line.length))).toBe(100);
    expect(out).toHaveLength(12);
    if (LEAN) expect(result.err).not.toMatch(/Page \d/);
    else expect(result.err).toMatch(/^Page 1 of 2 \(12 articles\)\. Next: topup articles list --page 2$/m);
    expect((await h.runEmbedded(['articles', 'list'], { tty: true })).out).toMatch(ANSI_ESCAPE);
  });

  it('--json: the page; --all --json: { articles: [...every article] }', async () => {
    const page = JSON.parse((await h.runEmbedded(['--json', 'articles', 'list', '--page', '2'])).out);
    expect(page).toEqual(await h.client('demo').articles.list({ page: 2 }));
    const all = await h.runEmbedded(['--json', 'articles', 'list', '--all']);
    expect(all.err).toBe(
      LEAN
        ? `${EMBEDDED_NOTICE}The server does not say whether there are more articles than these (its answer has no pagination); only the first page is shown.\n`
        : EMBEDDED_NOTICE,
    );
    expect(Object.keys(JSON.parse(all.out))).toEqual(['articles']);
    expect(JSON.parse(all.out).articles.map((a: { slug: string }) => a.slug)).toEqual(
      (LEAN ? PAGE_1 : [...PAGE_1, ...PAGE_2]).map((r) => r.split('\t')[2]),
    );
  });
});

describe('topup articles show', () => {
  it('piped: fields, a blank line, then the Markdown body', async () => {
    const result = await h.runEmbedded(['articles', 'show', 'keeping-your-api-token-safe']);
    expect(result.code).toBe(0);
    // A lean server sends an article's summary fields only: no author, tags, update time or body.
    expect(result.out).toBe(
      [
        'title: Keeping your API token safe',
        'slug: keeping-your-api-token-safe',
        'category: news',
        `author: ${LEAN ? '-' : 'Topup Team'}`,
        `tags: ${LEAN ? '-' : 'news,sandbox'}`,
        'published_at: 2026-01-08T08:00:00Z',
        `updated_at: ${LEAN ? '-' : '2026-01-08T08:00:00Z'}`,
        'article_url: http://sandbox.localhost/articles/keeping-your-api-token-safe',
        ...(LEAN ? [''] : ['', '# Keeping your API token safe', '', 'This sandbox article is a fixed test value.', '']),
      ].join('\n'),
    );
  });

  it('terminal: aligned labels', async () => {
    const result = await h.runEmbedded(['articles', 'show', 'keeping-your-api-token-safe', '--no-color'], { tty: true });
    expect(result.out.split('\n').slice(0, 3)).toEqual([
      'title      Keeping your API token safe',
      'slug       keeping-your-api-token-safe',
      'category   news',
    ]);
    expect(result.out).toMatch(LEAN ? /^tags {7}-$/m : /^tags {7}news, sandbox$/m);
  });

  it('--json: exactly the data object', async () => {
    const result = await h.runEmbedded(['--json', 'articles', 'show', 'rate-limits-for-bot-authors']);
    expect(JSON.parse(result.out)).toEqual(await h.client('demo').articles.get('rate-limits-for-bot-authors'));
    expect(result.err).toBe(EMBEDDED_NOTICE);
  });

  it.each(['upcoming-features', 'draft-upcoming-features'])('an unknown or unpublished slug (%s) → exit 1', async (slug) => {
    const result = await h.runEmbedded(['articles', 'show', slug]);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toMatch(new RegExp(`^Error: Article '${slug}' was not found\\.$`, 'm'));
  });
});
