import type { Spinner } from './spinner.js';

export interface PagingProgress {
  /** Page `page` has arrived: of `totalPages` when the server says, with `items` so far when counted. */
  page(page: number, detail?: { totalPages?: number | undefined; items?: number | undefined }): void;
  /** Clears the line (always call it, also on failure). */
  stop(): void;
}

/** The text of a paging progress line, on the spinner that IOStreams.progress() gives (a no-op off a terminal). */
export function startPagingProgress(spinner: Spinner, noun: string): PagingProgress {
  return {
    page(page, detail = {}) {
      const of = detail.totalPages === undefined ? '' : ` of ${detail.totalPages}`;
      const items = detail.items === undefined ? '' : `, ${detail.items} so far`;
      spinner.update(`Fetching ${noun}: page ${page}${of}${items}…`);
    },
    stop: () => spinner.stop(),
  };
}
