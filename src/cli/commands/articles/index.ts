import { InvalidArgumentError, type Command } from 'commander';
import type { ArticleDetail, ArticleList, ArticleSummary } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { orDash, plainCell, renderRecord, timeText, type RecordField } from '../../io/format.js';
import { listIn, recordIn } from '../shared/answer.js';
import type { View } from '../../io/view.js';
import type { Column } from '../../io/table.js';
import { parseSlug } from '../shared/choices.js';
import { addPagingOptions, runList, type PagingFlags } from '../shared/paging.js';

export function articleColumns(view: View): Column<ArticleSummary>[] {
  return [
    { header: 'published', value: (a) => timeText(a.published_at, view) },
    { header: 'category', value: (a) => a.category },
    { header: 'slug', value: (a) => (view.terminal ? view.style.cyan(a.slug) : a.slug) },
    { header: 'title', value: (a) => plainCell(a.title), free: true },
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
    commandFor: (page) => ['topup articles list', ...extra, `--page ${page}`].join(' '),
  });
}

export function articleFields(article: ArticleDetail, view: View): RecordField[] {
  return [
    { key: 'title', label: 'title', plain: article.title, pretty: view.style.bold(orDash(article.title)) },
    { key: 'slug', label: 'slug', plain: article.slug },
    { key: 'category', label: 'category', plain: article.category },
    { key: 'author', label: 'author', plain: article.author },
    { key: 'tags', label: 'tags', plain: article.tags?.join(','), pretty: article.tags?.join(', ') },
    { key: 'published_at', label: 'published', plain: timeText(article.published_at, view) },
    { key: 'updated_at', label: 'updated', plain: timeText(article.updated_at, view) },
    { key: 'article_url', label: 'link', plain: article.article_url },
  ];
}

/** The fields, a blank line, then the Markdown body as-is. */
export async function runArticlesShow(ctx: CliContext, slug: string): Promise<void> {
  const data = await (await ctx.client()).articles.get(slug, { signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  const view = ctx.io.view;
  const article = recordIn<ArticleDetail>(data, 'article');
  // No body from the server: the fields alone, rather than a blank body that looks like an empty article.
  const content = article.content === undefined ? '' : article.content.endsWith('\n') ? `\n${article.content}` : `\n${article.content}\n`;
  ctx.io.out(`${renderRecord(articleFields(article, view), view)}${content}`);
}

function parseCategory(value: string): string {
  if (value.length < 1 || value.length > 64) throw new InvalidArgumentError('A category is 1 to 64 characters.');
  return value;
}

export function registerArticleCommands(program: Command, ctx: CliContext): void {
  const articles = program
    .command('articles')
    .description("Read the shop's published articles (guides, news, promotions)")
    .addHelpText(
      'after',
      `
Examples:
  $ topup articles list
  $ topup articles show keeping-your-api-token-safe`,
    );

  const list = articles
    .command('list')
    .description('List published articles, newest first (10 a page)')
    .option('--category <name>', 'only articles of this category, e.g. guide, news, promo', parseCategory);
  addPagingOptions(list, { perPage: false })
    .addHelpText(
      'after',
      `
Piped, each article is one tab-separated line: published (ISO 8601, UTC), category, slug, title. On a terminal,
long titles end in … to fit its width; the slug is never shortened.

Examples:
  $ topup articles list
  $ topup articles list --category guide --page 2
  $ topup articles list --all | cut -f3`,
    )
    .action((flags: PagingFlags & { category?: string }) => runArticlesList(ctx, flags));

  articles
    .command('show')
    .argument('<slug>', "the article's slug, as `articles list` shows it", parseSlug)
    .description('Show one article with its Markdown body')
    .addHelpText(
      'after',
      `
Examples:
  $ topup articles show keeping-your-api-token-safe
  $ topup articles show keeping-your-api-token-safe --json | jq -r .article.content`,
    )
    .action((slug: string) => runArticlesShow(ctx, slug));
}
