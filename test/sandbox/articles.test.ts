import { describe, expect, it } from 'vitest';
import { dataOf, expectError, transports, useSandboxes } from '../support/sandbox-harness.js';

/** The published seed articles, oldest first (one a day from 2026-01-01 08:00:00). */
const published = [
  ['how-to-create-a-pass-for-your-top-up', 'guide'],
  ['paying-an-invoice-step-by-step', 'news'],
  ['new-bank-transfer-by-virtual-account', 'promo'],
  ['weekend-promo-10-off-large-orders', 'guide'],
  ['linking-your-chat-account-for-balance-payments', 'news'],
  ['why-your-order-is-still-processing', 'promo'],
  ['vip-server-orders-explained', 'guide'],
  ['keeping-your-api-token-safe', 'news'],
  ['rate-limits-for-bot-authors', 'promo'],
  ['idempotency-keys-never-pay-twice', 'guide'],
  ['reading-your-balance-transactions', 'news'],
  ['shop-hours-during-the-holidays', 'promo'],
] as const;
const newestFirst = [...published].reverse().map(([slug]) => slug);
const DRAFTS = ['draft-upcoming-features', 'unpublished-old-promo'];

const slugs = (articles: Array<{ slug: string }>) => articles.map((a) => a.slug);

describe.each(transports)('articles (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('lists only published articles, newest first, 10 a page', async () => {
    const t = await sandbox(transport);
    const first = dataOf(await t.request('GET', '/api/v1/articles'));
    expect(first.limit).toBe(10);
    expect(slugs(first.articles)).toEqual(newestFirst.slice(0, 10));
    expect(first.pagination).toEqual({ page: 1, per_page: 10, total: 12, total_pages: 2, has_more: true });
    const second = dataOf(await t.request('GET', '/api/v1/articles?page=2'));
    expect(slugs(second.articles)).toEqual(newestFirst.slice(10));
    expect(second.pagination).toEqual({ page: 2, per_page: 10, total: 12, total_pages: 2, has_more: false });
    const beyond = dataOf(await t.request('GET', '/api/v1/articles?page=3'));
    expect(beyond.articles).toEqual([]);
    expect(beyond.pagination).toMatchObject({ total: 12, has_more: false });
    for (const draft of DRAFTS) expect([...slugs(first.articles), ...slugs(second.articles)]).not.toContain(draft);
  });

  it('writes absolute links and timestamps into each summary', async () => {
    const t = await sandbox(transport);
    const [newest] = dataOf(await t.request('GET', '/api/v1/articles')).articles;
    expect(newest).toEqual({
      title: 'Shop hours during the holidays',
      slug: 'shop-hours-during-the-holidays',
      category: 'promo',
      excerpt: expect.any(String),
      cover_image: `${t.baseUrl}/images/articles/shop-hours-during-the-holidays.jpg`,
      article_url: `${t.baseUrl}/articles/shop-hours-during-the-holidays`,
      published_at: '2026-01-12 08:00:00',
    });
  });

  it('filters by category', async () => {
    const t = await sandbox(transport);
    const guides = dataOf(await t.request('GET', '/api/v1/articles?category=guide'));
    expect(slugs(guides.articles)).toEqual(
      [...published]
        .reverse()
        .filter(([, c]) => c === 'guide')
        .map(([slug]) => slug),
    );
    expect(guides.pagination).toEqual({ page: 1, per_page: 10, total: 4, total_pages: 1, has_more: false });
    expect(dataOf(await t.request('GET', '/api/v1/articles?category=nothing')).articles).toEqual([]);
  });

  it('hides articles whose publication time has not come', async () => {
    const t = await sandbox(transport, { now: () => Date.UTC(2026, 0, 5, 8, 0, 0) });
    const list = dataOf(await t.request('GET', '/api/v1/articles'));
    expect(slugs(list.articles)).toEqual(
      published
        .slice(0, 5)
        .map(([slug]) => slug)
        .reverse(),
    );
    expectError(await t.request('GET', `/api/v1/articles/${published[5][0]}`), 404, 'NOT_FOUND');
  });

  it('shows a published article in full', async () => {
    const t = await sandbox(transport);
    const article = dataOf(await t.request('GET', '/api/v1/articles/paying-an-invoice-step-by-step')).article;
    expect(article).toMatchObject({
      slug: 'paying-an-invoice-step-by-step',
      title: 'Paying an invoice step by step',
      category: 'news',
      published_at: '2026-01-02 08:00:00',
    });
    expect(article.content.length).toBeGreaterThan(0);
    expect(article.tags).toContain('news');
  });

  it.each([...DRAFTS, 'no-such-article', 'Paying-An-Invoice-Step-By-Step'])('answers 404 NOT_FOUND for %s', async (slug) => {
    const t = await sandbox(transport);
    const answer = await t.request('GET', `/api/v1/articles/${slug}`);
    expectError(answer, 404, 'NOT_FOUND');
    expect(answer.text).not.toContain('Upcoming features');
  });
});

describe.each(transports)('articles per_page (%s)', (transport) => {
  const open = useSandboxes();
  it.each([['0'], ['11'], ['100'], ['x']])('per_page=%s is refused with 422 VALIDATION_FAILED, like the other lists', async (value) => {
    const t = await open(transport);
    expectError(await t.request('GET', `/api/v1/articles?per_page=${value}`), 422, 'VALIDATION_FAILED', ['per_page']);
  });
  it('per_page within 1 to 10 is honoured', async () => {
    const t = await open(transport);
    const data = dataOf(await t.request('GET', '/api/v1/articles?per_page=3'));
    expect(data.articles).toHaveLength(3);
    expect(data.pagination).toMatchObject({ per_page: 3, has_more: true });
  });
});
