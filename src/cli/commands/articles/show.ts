import type { Command } from 'commander';
import type { ArticleDetail } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { orDash, renderRecord, timeText, valueText, type RecordField } from '../../io/format.js';
import { recordIn } from '../shared/answer.js';
import type { View } from '../../io/view.js';
import { parseSlug } from '../shared/choices.js';

/**
 * An article's tags: the document does not show an article's detail, so `tags` may be anything. A list is joined, its
 * items as they are (a text itself, anything else as its JSON); any other value is shown as it is.
 */
function tagsText(tags: unknown, separator: string): unknown {
  if (!Array.isArray(tags)) return tags;
  return tags.map((tag: unknown) => (typeof tag === 'string' ? tag : JSON.stringify(tag))).join(separator);
}

/** The body to print under the fields: undefined when the server sent none (missing or null), else as it is. */
function bodyText(content: unknown): string | undefined {
  if (content === undefined || content === null) return undefined;
  return typeof content === 'string' ? content : valueText(content);
}

export function articleFields(article: ArticleDetail, view: View): RecordField[] {
  const tags: unknown = article.tags;
  return [
    { key: 'title', label: 'title', plain: article.title, pretty: view.style.bold(orDash(article.title)) },
    { key: 'slug', label: 'slug', plain: article.slug },
    { key: 'category', label: 'category', plain: article.category },
    { key: 'author', label: 'author', plain: article.author },
    { key: 'tags', label: 'tags', plain: tagsText(tags, ','), pretty: Array.isArray(tags) ? String(tagsText(tags, ', ')) : undefined },
    { key: 'published_at', label: 'published', plain: timeText(article.published_at, view) },
    { key: 'updated_at', label: 'updated', plain: timeText(article.updated_at, view) },
    { key: 'article_url', label: 'link', plain: article.article_url },
  ];
}

/** The fields, a blank line, then the Markdown body as-is. */
export async function runArticlesShow(ctx: CliContext, slug: string): Promise<void> {
  const data = await (await ctx.client()).articles.get(slug, { signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  const view = await ctx.io.tableView();
  const article = recordIn<ArticleDetail>(data, 'article', (text) => ctx.io.notice(text));
  // No body from the server: the fields alone, rather than a blank body that looks like an empty article.
  const body = bodyText(article.content);
  const content = body === undefined ? '' : body.endsWith('\n') ? `\n${body}` : `\n${body}\n`;
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
