import type { Pagination } from '../contract/common.js';
import { TopupError } from '../errors.js';

/** The code of the error that ends a walk through pages when the server answers another page than the one asked for. */
export const PAGE_OUT_OF_ORDER = 'PAGE_OUT_OF_ORDER';

/**
 * A page of any list endpoint: its items under one key, plus, when the server says, where it sits in the whole list.
 * Pagination is not in the interface document, so a page without it is the only page this client can know of.
 */
export interface Page {
  pagination?: Pagination | undefined;
}

/** The items of a list answer; a list without its array is an error that says so, never an empty list. */
export function itemsOf<T>(list: object, key: string): readonly T[] {
  const items = (list as Record<string, unknown>)[key];
  if (!Array.isArray(items)) throw new TopupError(`The server's answer has no ${key} list.`);
  return items as T[];
}

/**
 * The page number a page says it is, when it is one (a whole number from 1): a server may send `"2"` or `2.5`, and
 * counting on from `"2"` would ask for page 21.
 */
function pageNumberOf(page: Page): number | undefined {
  const named: unknown = page.pagination?.page;
  return typeof named === 'number' && Number.isSafeInteger(named) && named >= 1 ? named : undefined;
}

/**
 * What list methods return: await it for the requested page, or `for await` over every item of every page.
 * The first page is fetched once, lazily, when first awaited or iterated (after openai-node's PagePromise,
 * but a thenable rather than a Promise subclass, which keeps `then` chaining plain).
 */
export class PagePromise<P extends Page, Item> implements PromiseLike<P>, AsyncIterable<Item> {
  readonly #fetchPage: (page: number | undefined) => Promise<P>;
  /** Undefined: the items are not known (a raw walk, `topup api --paginate`): nothing to iterate or check. */
  readonly #itemsOf: ((page: P) => readonly Item[]) | undefined;
  readonly #startPage: number | undefined;
  #first: Promise<P> | undefined;

  constructor(
    fetchPage: (page: number | undefined) => Promise<P>,
    itemsOf: ((page: P) => readonly Item[]) | undefined,
    startPage?: number,
  ) {
    this.#fetchPage = fetchPage;
    this.#itemsOf = itemsOf;
    this.#startPage = startPage;
  }

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.#firstPage().finally(onFinally);
  }

  /**
   * Every page from the requested one on, following `pagination.has_more`. A page that names another number than the
   * one asked for ends the walk with an error: a server that answers page 1 with has_more to every request would
   * otherwise be read forever.
   */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let page = await this.#firstPage();
    let number = pageNumberOf(page) ?? this.#startPage ?? 1;
    yield page;
    // Only an explicit has_more: true goes on; a server that says nothing has said there is no more.
    while (page.pagination?.has_more === true) {
      const before = page;
      number += 1;
      page = await this.#fetchPage(number);
      const named = pageNumberOf(page);
      if (named !== undefined && named !== number)
        throw new TopupError(
          `Asked for page ${number}, the server answered page ${named} and says more follow; stopped rather than read pages again.`,
          { code: PAGE_OUT_OF_ORDER },
        );
      // A page that says more follow is checked by what it holds: none ends the walk there (as `topup api --paginate`
      // stops at its first empty page), and, without its number, the same items again (a server that does not read
      // `page`) is an error; either would otherwise be read forever.
      if (page.pagination?.has_more === true && this.#itemsOf !== undefined) {
        if (this.#itemsOf(page).length === 0) {
          yield page;
          return;
        }
        if (named === undefined) this.#refuseRepeated(before, page, number);
      }
      yield page;
    }
  }

  #refuseRepeated(before: P, page: P, number: number): void {
    const itemsOf = this.#itemsOf!;
    if (JSON.stringify(itemsOf(page)) === JSON.stringify(itemsOf(before)))
      throw new TopupError(
        `The server answered page ${number} with the same items as page ${number - 1} and says more follow; stopped rather than read the same page again.`,
        { code: PAGE_OUT_OF_ORDER },
      );
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.#itemsOf?.(page) ?? [];
  }

  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }

  #firstPage(): Promise<P> {
    this.#first ??= this.#fetchPage(this.#startPage);
    return this.#first;
  }
}
