import { APIPromise, type WithResponse } from './api-promise.ts'
import { GrowthError } from './errors.ts'
import type { PagingSpec } from './generated/operations.ts'

/** Loads the page at a position (the value of the list's paging parameter). */
export type PageLoader<Item> = (position: string) => PagePromise<Item>

/**
 * One page of a list. `for await (const item of page)` goes on through every later page, following
 * the list's own paging (meta.nextCursor as `cursor` or `after`, meta.nextBefore as `before`).
 */
export class Page<Item> implements AsyncIterable<Item> {
  /** The items of this page. */
  readonly data: Item[]
  /** The answer's meta: the position of the next page, when there is one. */
  readonly meta: Record<string, string> | undefined
  readonly #spec: PagingSpec
  readonly #limit: number
  readonly #load: PageLoader<Item>
  /** The position this page was loaded at (undefined for the first page). */
  readonly #position: string | undefined

  constructor(
    body: { data: Item[]; meta?: Record<string, string> },
    spec: PagingSpec,
    limit: number | undefined,
    load: PageLoader<Item>,
    position?: string,
  ) {
    this.data = body.data
    this.meta = body.meta
    this.#spec = spec
    this.#limit = limit ?? spec.defaultLimit
    this.#load = load
    this.#position = position
  }

  /** The position the next page starts from, or undefined on the last page. */
  get nextPosition(): string | undefined {
    const next = this.meta?.[this.#spec.next]
    if (!next) return undefined
    // A stream (events) names a position on every page that holds items; a page short of the limit
    // means the reader has caught up.
    if (this.#spec.stream && this.data.length < this.#limit) return undefined
    return next
  }

  hasNextPage(): boolean {
    return this.nextPosition !== undefined
  }

  /** The next page. Throws on the last page: check hasNextPage() first. */
  nextPage(): PagePromise<Item> {
    const next = this.nextPosition
    if (next === undefined) throw new Error('This is the last page of the list: check hasNextPage() before nextPage().')
    // A server that hands back the position it was asked for would keep a for-await loop going for
    // ever (until the rate limit): stop with an error that says so.
    if (next === this.#position) throw new GrowthError(`The list answered page position ${next} as its own next position; stopping rather than loading it again.`)
    return this.#load(next)
  }

  /** This page and every later one. */
  async *iterPages(): AsyncGenerator<Page<Item>, void, undefined> {
    let page: Page<Item> = this
    for (;;) {
      yield page
      if (!page.hasNextPage()) return
      page = await page.nextPage()
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data
  }
}

/** A list call under way: await it for the first page, or `for await` over every item of every page. */
export class PagePromise<Item> extends APIPromise<Page<Item>> implements AsyncIterable<Item> {
  constructor(answer: Promise<WithResponse<Page<Item>>>) {
    super(answer)
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    const page = await this
    yield* page
  }
}
