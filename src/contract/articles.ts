import { z } from 'zod';
import { component, Pagination, PaginationQuery, sharedFields, Timestamp, tolerant } from './common.js';
import { GUARANTEED } from './guaranteed.js';

const articleSummaryFields = sharedFields(() => ({
  title: z.string(),
  slug: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/),
  category: z.string(),
  excerpt: z.string(),
  cover_image: z.url(),
  article_url: z.url(),
  published_at: Timestamp,
}));

export const ArticleSummary = component('ArticleSummary', tolerant(articleSummaryFields, GUARANTEED.ArticleSummary));
export type ArticleSummary = z.infer<typeof ArticleSummary>;

export const ArticleList = component(
  'ArticleList',
  tolerant(
    () => ({
      articles: z.array(ArticleSummary),
      limit: z.int().min(1).meta({ description: 'Most articles one page returns (10).' }),
      pagination: Pagination,
    }),
    GUARANTEED.ArticleList,
  ),
);
export type ArticleList = z.infer<typeof ArticleList>;

export const ArticleListQuery = z.object({
  page: PaginationQuery.shape.page,
  per_page: z.coerce.number().int().min(1).max(10).optional().meta({ description: 'Articles a page, 1 to 10 (`data.limit`); default 10.' }),
  category: z.string().min(1).max(64).optional(),
});
export type ArticleListQuery = z.input<typeof ArticleListQuery>;

export const ArticleDetail = component(
  'ArticleDetail',
  tolerant(() => ({
    ...articleSummaryFields(),
    content: z.string().meta({ description: 'The article body in Markdown.' }),
    author: z.string(),
    tags: z.array(z.string()),
    updated_at: Timestamp,
  })),
);
export type ArticleDetail = z.infer<typeof ArticleDetail>;

export const ArticleEnvelopeData = component(
  'ArticleData',
  tolerant(() => ({ article: ArticleDetail })),
);
