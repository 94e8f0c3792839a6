import { hintCommand } from '../../hint-command.js';
import { InvalidArgumentError, type Command } from 'commander';
import type { ArticleList, ArticleSummary } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { plainCell, timeText } from '../../io/format.js';
import { listIn } from '../shared/answer.js';
import type { View } from '../../io/view.js';
import type { Column } from '../../io/table.js';
import { addPagingOptions, runList, type PagingFlags } from '../shared/paging.js';

export function articleColumns(view: View): Column<ArticleSummary>[] {
  return [
    { header: 'published', value: (a) => timeText(a.published_at, view), priority: 1 },
    { header: 'category', value: (a) => a.category, priority: 2 },
    { header: 'slug', value: (a) => (view.terminal ? view.style.cyan(a.slug) : a.slug) },
    { header: 'title', value: (a) => plainCell(a.title), free: true, priority: 3 },
  ];
}

export async function runArticlesList(ctx: CliContext, flags: PagingFlags & { category?: string | undefined }): Promise<void> {
  const client = await ctx.client();
  const extra = flags.category ? [`--category ${flags.category}`] : [];
  await runList<ArticleList, ArticleSummary>(ctx, flags, {
    noun: 'articles',
    key: 'articles',
    columns: articleColumns(ctx.io.view),
    // The page size is fixed by the server (10), so --per-page does not exist here.
    fetch: (query) =>
      client.articles.list(
        { ...(flags.category ? { category: flags.category } : {}), ...(query.page === undefined ? {} : { page: query.page }) },
        { signal: ctx.signal },
      ),
    itemsOf: (page) => listIn(page, 'articles'),
    commandFor: (page) => hintCommand(ctx, ['articles list', ...extra, `--page ${page}`].join(' ')),
  });
}

function parseCategory(value: string): string {
  if (value.length < 1 || value.length > 64) throw new InvalidArgumentError('A category is 1 to 64 characters.');
  return value;
}

/** `topup articles list`. */
export function registerArticlesList(articles: Command, ctx: CliContext): void {
  const list = articles
    .command('list')
    .description('List published articles, newest first (10 a page)')
    .option('--category <name>', 'only articles of this category, e.g. guide, news, promo', parseCategory);
  addPagingOptions(list, { perPage: false })
    .addHelpText(
      'after',
      `
Piped, each article is one tab-separated line: published (ISO 8601, UTC), category, slug, title. On a terminal,
long titles end in … to fit its width, and a narrow one leaves out the date, then the category, then the title
(topup help formatting); the slug is never shortened.

Examples:
  $ topup articles list
  $ topup articles list --category guide --page 2
  $ topup articles list --all | cut -f3`,
    )
    .action((flags: PagingFlags & { category?: string }) => runArticlesList(ctx, flags));
}
