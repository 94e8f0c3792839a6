import type { z } from 'zod';
import type { ArticleList, ArticleListQuery, ArticleSummary } from '../contract/articles.js';
import type { ArticleEnvelopeData } from '../contract/articles.js';
import { itemsOf, PagePromise } from './paginate.js';
import type { QueryParams, Requester, RequestOptions } from './request.js';

export type ArticleListParams = QueryParams<z.infer<typeof ArticleListQuery>>;
export type ArticleData = z.infer<typeof ArticleEnvelopeData>;

export interface ArticlesApi {
  /** Published articles, newest first. Await for one page, or `for await` over every article. Public. */
  list(query?: ArticleListParams, options?: RequestOptions): PagePromise<ArticleList, ArticleSummary>;
  /** One published article by slug. Public. */
  get(slug: string, options?: RequestOptions): Promise<ArticleData>;
}

export function articlesApi(request: Requester): ArticlesApi {
  return {
    list: (query, options) =>
      new PagePromise(
        (page) => request('listArticles', { ...options, query: { ...query, page } }),
        (list) => itemsOf(list, 'articles'),
        query?.page,
      ),
    get: (slug, options) => request('getArticle', { ...options, params: { slug } }),
  };
}
