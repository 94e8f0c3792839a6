import type { Pagination } from '../../src/contract/index.js';

/** One page of a list kept oldest first, served newest first. Without a filter it touches only the page's items. */
export function pageNewestFirst<T>(
  oldestFirst: readonly T[],
  page: number,
  perPage: number,
  keep?: (item: T) => boolean,
): { items: T[]; pagination: Pagination } {
  const start = (page - 1) * perPage;
  let items: T[];
  let total: number;
  if (keep === undefined) {
    total = oldestFirst.length;
    items = [];
    for (let i = total - 1 - start; i >= 0 && items.length < perPage; i--) items.push(oldestFirst[i]!);
  } else {
    items = [];
    total = 0;
    for (let i = oldestFirst.length - 1; i >= 0; i--) {
      const item = oldestFirst[i]!;
      if (!keep(item)) continue;
      if (total >= start && items.length < perPage) items.push(item);
      total += 1;
    }
  }
  const totalPages = Math.ceil(total / perPage);
  return { items, pagination: { page, per_page: perPage, total, total_pages: totalPages, has_more: page < totalPages } };
}
