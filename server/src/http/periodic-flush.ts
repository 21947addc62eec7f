import type { RepeatedFailure } from '../core/repeated-failure.ts'

/**
 * What the pipeline keeps in memory and writes to the database in one statement every `flushMs`
 * (and on shutdown), so no request waits on a round trip for it: the call counts (count.ts) and the
 * request log (request-log.ts). What was kept since the last flush is lost if the process dies
 * without shutting down; a flush that fails gives its batch back for the next one, unless the writer
 * says the batch itself was refused (`keeps`).
 */
export abstract class PeriodicFlush<Batch> {
  private timer: ReturnType<typeof setInterval> | undefined
  private flushing: Promise<void> | undefined

  constructor(private readonly flushMs: number) {}

  /** What was kept since the last flush, handed over (and forgotten here); undefined when nothing was. */
  protected abstract take(): Batch | undefined
  protected abstract write(batch: Batch): Promise<void>
  /** A batch whose write failed, kept again for the next flush. */
  protected abstract putBack(batch: Batch): void
  /**
   * Whether a batch whose write failed with `error` is kept for the next flush: yes by default (the
   * database away); a writer says no for an error the same batch would meet again.
   */
  protected keeps(_error: unknown): boolean {
    return true
  }

  /**
   * Flushes every `flushMs` from now on; a failed flush is told to `failures` (its batch waits for
   * the next), and so is the next flush that writes something: a run of failures is said once.
   */
  start(failures?: Pick<RepeatedFailure, 'failed' | 'worked'>) {
    this.timer ??= setInterval(
      () =>
        void this.flush().then(
          (wrote) => wrote && failures?.worked(),
          (error) => failures?.failed(error),
        ),
      this.flushMs,
    )
    this.timer.unref?.()
  }

  /** Writes what was kept since the last flush; whether there was anything to write. */
  async flush(): Promise<boolean> {
    if (this.flushing) await this.flushing
    const batch = this.take()
    if (batch === undefined) return false
    this.flushing = (async () => {
      try {
        await this.write(batch)
      } catch (err) {
        if (this.keeps(err)) this.putBack(batch)
        throw err
      } finally {
        this.flushing = undefined
      }
    })()
    await this.flushing
    return true
  }

  async stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.flush()
  }
}
