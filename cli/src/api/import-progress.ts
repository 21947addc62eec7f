import { SingleBar } from 'cli-progress'
import { writeErr } from '../output.ts'

type ImportProgress = {
  update(bytes: number, rows: number): void
  /** A line for a person while the bar runs: the bar steps aside for it and comes back. */
  say(text: string): void
  /** Ends the bar for good (again is nothing), restoring the cursor and line wrap, its line cleared. */
  stop(): void
}

/**
 * The import's progress bar (cli-progress) on stderr when it is a terminal. While it runs the
 * cursor is hidden (ESC[?25l) and line wrap off (ESC[?7l); stop() turns both back on, so every way
 * out of the import (the end, a refusal, Ctrl-C) calls it before saying anything else.
 */
export function importProgress(size: number, show: boolean): ImportProgress {
  const bar = show ? new SingleBar({ format: 'importing {bar} {percentage}% | {rows} rows | {eta_formatted} left', hideCursor: true, clearOnComplete: true, stream: process.stderr }) : undefined
  let at = { bytes: 0, rows: 0 }
  let running = Boolean(bar)
  bar?.start(size, 0, { rows: 0 })
  return {
    update(bytes, rows) {
      at = { bytes, rows }
      if (running) bar!.update(bytes, { rows })
    },
    say(text) {
      if (running) bar!.stop()
      writeErr(text)
      if (running) bar!.start(size, at.bytes, { rows: at.rows })
    },
    stop() {
      if (!running) return
      running = false
      bar!.stop()
    },
  }
}
