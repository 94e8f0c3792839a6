import type { Command } from 'commander';
import type { ArticleDetail } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { orDash, renderRecord, timeText, type RecordField } from '../../io/format.js';
import { recordIn } from '../shared/answer.js';
import type { View } from '../../io/view.js';
import { parseSlug } from '../shared/choices.js';

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

/** `topup articles show SLUG`. */
export function registerArticlesShow(articles: Command, ctx: CliContext): void {
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
