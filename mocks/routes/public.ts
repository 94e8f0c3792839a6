import { formatTimestamp } from '../../src/contract/money.js';
import { INTERFACE_VERSION } from '../../src/contract/version.js';
import { ApiError, SerializedData } from '../core/exchange.js';
import * as present from './present.js';
import { CURRENCY } from '../rules/pricing.js';
import { pageNewestFirst } from './paging.js';
import type { RouteHandler } from './context.js';

const PACKAGE_LIMIT = 50;
const ARTICLE_LIMIT = 10;

export const getHealth: RouteHandler = ({ now }) => ({
  message: 'API is healthy.',
  data: { status: 'ok', version: INTERFACE_VERSION, api: 'v1', time: formatTimestamp(now) },
});

/**
 * The catalog is what bots poll most, and it changes only when its table does (seed, restore, reset):
 * serialised once per table version instead of per request. Its records are never changed in place.
 */
const catalogCache = new WeakMap<object, { version: number; data: SerializedData }>();

function cachedData(table: { readonly version: number }, build: () => unknown): SerializedData {
  const cached = catalogCache.get(table);
  if (cached?.version === table.version) return cached.data;
  const data = new SerializedData(JSON.stringify(build()));
  catalogCache.set(table, { version: table.version, data });
  return data;
}

export const listCreditPackages: RouteHandler = ({ store }) => {
  const table = store.db.creditPackages;
  const data = cachedData(table, () => {
    const packages = table
      .all()
      .filter((p) => p.active)
      .sort((a, b) => a.sort_order - b.sort_order)
      .slice(0, PACKAGE_LIMIT);
    return { packages: packages.map(present.creditPackage), limit: PACKAGE_LIMIT };
  });
  return { message: 'Credit packages retrieved.', data };
};

export const listPaymentMethods: RouteHandler = ({ store }) => {
  const table = store.db.paymentMethods;
  const data = cachedData(table, () => {
    const methods = table
      .all()
      .filter((m) => m.active)
      .sort((a, b) => a.sort_order - b.sort_order);
    return { payment_methods: methods.map((m) => present.paymentMethod(m, CURRENCY)) };
  });
  return { message: 'Payment methods retrieved.', data };
};

export const listArticles: RouteHandler = ({ store, query, base, now }) => {
  const category = query.category as string | undefined;
  const published = store.db.articles
    .all()
    .filter((a) => a.status === 'published' && a.published_at <= now)
    .sort((a, b) => a.published_at - b.published_at);
  const { items, pagination } = pageNewestFirst(
    published,
    query.page as number,
    (query.per_page as number | undefined) ?? ARTICLE_LIMIT,
    category === undefined ? undefined : (a) => a.category === category,
  );
  return {
    message: 'Articles retrieved.',
    data: { articles: items.map((a) => present.articleSummary(a, base)), limit: ARTICLE_LIMIT, pagination },
  };
};

export const getArticle: RouteHandler = ({ store, params, base, now }) => {
  const article = store.db.articles.get(params.slug!);
  if (article === undefined || article.status !== 'published' || article.published_at > now) {
    throw new ApiError(404, `Article '${params.slug}' was not found.`, 'NOT_FOUND');
  }
  return { message: 'Article retrieved.', data: { article: present.articleDetail(article, base) } };
};
