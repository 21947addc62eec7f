import { expect, test } from 'bun:test'
import { EventWatcher } from '../../server/src/domain/event-watch.ts'
import { openPool } from '../../server/src/store/driver/db.ts'

/**
 * A watched workspace is polled every `everyMs`; while the database is away each poll fails. The
 * failure is reported once for the run, not at every poll (two log lines a second per open page
 * otherwise). The database here is a port nothing listens on: every poll is refused.
 */
test('a run of failed polls is reported once', async () => {
  const sql = openPool('postgres://postgres@127.0.0.1:1/nowhere', { max: 1, timeouts: { connectMs: 200 } })
  const errors: unknown[] = []
  const watcher = new EventWatcher(sql, { everyMs: 10, types: () => true, onError: (error) => errors.push(error) })
  const { stop, started } = watcher.watch('ws_away', () => {})
  await started
  expect(errors).toHaveLength(1)
  // Many more polls (each refused at once) while the database stays away.
  await new Promise((r) => setTimeout(r, 400))
  stop()
  watcher.close()
  await sql.end({ timeout: 1 }).catch(() => {})
  expect(errors).toHaveLength(1)
})
