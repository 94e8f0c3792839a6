import { Option, type Command } from 'commander';
import type { Page, PagePromise } from '../../../client/index.js';
import type { CliContext } from '../../context.js';
import { renderTable, type Column } from '../../io/table.js';
import { CliError } from '../../errors.js';
import { sanitizeText } from '../../io/sanitize.js';
import { parseWholeNumber } from './choices.js';

export interface PagingFlags {
  page?: number | undefined;
  perPage?: number | undefined;
  all?: boolean | undefined;
}

/** The most --all reads: pages, and characters of their items as JSON (what it keeps in memory to print at once). */
/** The most pages `--all` (and `topup api --paginate`) follows: a server that always says more follow ends there. */
export const MAX_ALL_PAGES = 5_000;
/** The most text `--all` (and `api --paginate --slurp`) keeps to print at once. */
export const MAX_ALL_CHARS = 128 * 2 ** 20;

/** --page, --per-page (unless the endpoint has a fixed page size) and --all. */
export function addPagingOptions(command: Command, options: { perPage?: boolean } = {}): Command {
  command.addOption(new Option('--page <n>', 'page to show, from 1').argParser(parseWholeNumber('--page', 1, 1_000_000)));
  if (options.perPage !== false) {
    command.addOption(
      new Option('--per-page <n>', 'items per page, 1 to 100 (default 20; 100 with --all)').argParser(
        parseWholeNumber('--per-page', 1, 100),
      ),
    );
  }
  return command.addOption(new Option('--all', 'follow every page and print every item').conflicts('page'));
}

export interface ListPlan<P extends Page, Item> {
  /** Plural noun for messages, e.g. "orders". */
  noun: string;
  /** The list's key in the data object; --all --json prints `{ [key]: [...every item] }`. */
  key: string;
  columns: readonly Column<Item>[];
  fetch(query: { page?: number | undefined; per_page?: number | undefined }): PagePromise<P, Item>;
  itemsOf(page: P): readonly Item[];
  /** The command that shows page `page`, for the "next page" hint. */
  commandFor(page: number): string;
}

/**
 * One page (the data object as-is with --json), or with --all every item of every page, with a progress line on
 * stderr while a person watches. On a terminal the table takes the terminal's width and goes through the pager when
 * it is taller than the terminal (IOStreams.page). Hints about paging go to stderr and only on a terminal, so piped
 * output is just the rows.
 */
export async function runList<P extends Page, Item>(ctx: CliContext, flags: PagingFlags, plan: ListPlan<P, Item>): Promise<void> {
  if (flags.all) {
    const items: Item[] = [];
    let unpaged = false;
    let kept = 0;
    const progress = ctx.io.pagingProgress(plan.noun);
    try {
      // 100 a page keeps a long history within the rate limit.
      let number = 0;
      for await (const page of plan.fetch({ per_page: flags.perPage ?? 100 }).pages()) {
        const pageItems = plan.itemsOf(page);
        // Every item is kept to be printed at once: a server that says more follow, page after page, must not fill
        // the memory (some 200,000 orders as the sandbox writes them fit).
        kept += JSON.stringify(pageItems).length;
        if (kept > MAX_ALL_CHARS || number >= MAX_ALL_PAGES)
          throw new CliError(
            `Stopped after ${number} pages: --all keeps every one of the ${plan.noun} to print them at once, up to ${MAX_ALL_PAGES} pages and ${MAX_ALL_CHARS / 2 ** 20} MiB, and the server says more follow; page through with --page instead.`,
          );
        items.push(...pageItems);
        unpaged ||= page.pagination === undefined;
        number += 1;
        progress.page(page.pagination?.page ?? number, { totalPages: page.pagination?.total_pages, items: items.length });
      }
    } finally {
      progress.stop();
    }
    // A server that sends no pagination cannot say whether there is more: never pass one page off as all of them.
    if (unpaged)
      ctx.io.warn(
        `The server does not say whether there are more ${plan.noun} than these (its answer has no pagination); only the first page is shown.`,
      );
    if (ctx.globals.json) return ctx.io.writeJson({ [plan.key]: items });
    if (items.length > 0) await ctx.io.page(renderTable(items, plan.columns, await ctx.io.tableView()), ctx.signal);
    // The count closes what was shown; of a server that does not page, it counts the first page, never "all".
    const count = items.length === 0 ? `No ${plan.noun}` : `${items.length} ${plan.noun}`;
    if (ctx.io.terminal)
      ctx.io.notice(
        ctx.io.errStyle.dim(unpaged ? `${count} on the first page; the server does not say whether more follow.` : `${count}.`),
      );
    return;
  }
  const page = await plan.fetch({ page: flags.page, per_page: flags.perPage });
  // A server need not page (pagination is ours, not the document's): one that answers another page, or says nothing
  // of pages, may have sent its first page for the one asked for.
  const asked = flags.page ?? 1;
  const answered = page.pagination?.page;
  if (asked > 1 && answered === undefined)
    ctx.io.warn(
      `The server's answer does not say which page it is (it has no pagination), so these ${plan.noun} may not be page ${asked}.`,
    );
  else if (answered !== undefined && String(answered) !== String(asked))
    ctx.io.warn(`Page ${asked} was asked for, but the server answered page ${sanitizeText(String(answered), { multiline: false })}.`);
  if (ctx.globals.json) return ctx.io.writeJson(page);
  const items = plan.itemsOf(page);
  if (items.length > 0) await ctx.io.page(renderTable(items, plan.columns, await ctx.io.tableView()), ctx.signal);
  if (!ctx.io.terminal) return;
  // Pagination is ours, not the document's: without it, say nothing about other pages rather than guess.
  const pagination = page.pagination;
  const number = pagination?.page ?? flags.page ?? 1;
  const of = pagination?.total_pages === undefined ? '' : ` of ${pagination.total_pages}`;
  if (items.length === 0) ctx.io.notice(ctx.io.errStyle.dim(number > 1 ? `No ${plan.noun} on page ${number}${of}.` : `No ${plan.noun}.`));
  else if (pagination?.has_more === true)
    ctx.io.notice(
      ctx.io.errStyle.dim(
        `Page ${number}${of}${pagination.total === undefined ? '' : ` (${pagination.total} ${plan.noun})`}. Next: ${plan.commandFor(number + 1)}`,
      ),
    );
}
