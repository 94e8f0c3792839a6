import type { Pagination } from '../contract/common.js';

/** A page of any list endpoint: its items under one key, plus where it sits in the whole list. */
export interface Page {
  pagination: Pagination;
}

/**
 * What list methods return: await it for the requested page, or `for await` over every item of every page.
 * The first page is fetched once, lazily, when first awaited or iterated (after openai-node's PagePromise,
 * but a thenable rather than a Promise subclass, which keeps `then` chaining plain).
 */
export class PagePromise<P extends Page, Item> implements PromiseLike<P>, AsyncIterable<Item> {
  readonly #fetchPage: (page: number | undefined) => Promise<P>;
  readonly #itemsOf: (page: P) => readonly Item[];
  readonly #startPage: number | undefined;
  #first: Promise<P> | undefined;

  constructor(fetchPage: (page: number | undefined) => Promise<P>, itemsOf: (page: P) => readonly Item[], startPage?: number) {
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

  /** Every page from the requested one on, following `pagination.has_more`. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let page = await this.#firstPage();
    yield page;
    while (page.pagination.has_more) {
      page = await this.#fetchPage(page.pagination.page + 1);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.#itemsOf(page);
  }

  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }

  #firstPage(): Promise<P> {
    this.#first ??= this.#fetchPage(this.#startPage);
    return this.#first;
  }
}
