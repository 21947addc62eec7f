import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finished } from 'node:stream/promises'
import { type Database, openDatabase } from '../../server/src/store/driver/db.ts'

/**
 * COPY ... FROM STDIN on the embedded database (store/driver/embedded-queue.ts), as postgres.js
 * sends it to a PostgreSQL server: PGlite cannot wait for a COPY's data, so the socket's queue
 * answers it and runs the COPY from the data once it is all there. On a database of this test's own
 * in a temporary directory, whichever leg runs it; a second process's connection is a second client
 * of the same socket. The request log's flush is such a COPY (request-log.test.ts).
 */

let dir: string
let owner: Database
let client: Database

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'growth-embedded-copy-'))
  owner = await openDatabase({ dataDir: dir })
  client = await openDatabase({ dataDir: dir })
  expect([owner.kind, client.kind]).toEqual(['embedded-owner', 'embedded-client'])
  await owner.sql`CREATE TABLE copied (a int PRIMARY KEY, b text, c numeric)`
})

afterAll(async () => {
  await client?.close()
  await owner?.close()
  rmSync(dir, { recursive: true, force: true })
})

const rows = async () => [...(await owner.sql<{ a: number; b: string | null; c: string | null }[]>`SELECT a, b, c::text FROM copied ORDER BY a`)]

test('the data of several CopyData messages is written, escapes and \\N read as PostgreSQL reads them', async () => {
  const copy = await owner.sql`COPY copied (a, b, c) FROM STDIN`.writable()
  copy.write('1\tone\t1.5\n')
  copy.write('2\ttab\\there, back\\\\slash\t\\N\n3\t')
  copy.end('\\N\t-2e-3\n')
  await finished(copy)
  expect(await rows()).toEqual([
    { a: 1, b: 'one', c: '1.5' },
    { a: 2, b: 'tab\there, back\\slash', c: null },
    { a: 3, b: null, c: '-0.002' },
  ])
})

test('a COPY refused once its data is in says why, and the connection goes on', async () => {
  const copy = await owner.sql`COPY copied (a, b) FROM STDIN`.writable()
  copy.end('4\tfour\n1\tagain\n')
  await expect(finished(copy)).rejects.toMatchObject({ code: '23505' })
  expect((await rows()).map((r) => r.a)).toEqual([1, 2, 3])
  const [{ n }] = await owner.sql<{ n: number }[]>`SELECT 1 + 1 AS n`
  expect(n).toBe(2)
})

test('a COPY without a column list is refused, naming what the embedded database takes', async () => {
  await expect(owner.sql`COPY copied FROM STDIN`.writable()).rejects.toMatchObject({
    code: '0A000',
    message: expect.stringContaining('COPY table (column, ...) FROM STDIN'),
  })
  const [{ n }] = await owner.sql<{ n: number }[]>`SELECT 2 AS n`
  expect(n).toBe(2)
})

test('a COPY the client gives up on writes nothing, and the connection goes on', async () => {
  const copy = await owner.sql`COPY copied (a, b) FROM STDIN`.writable()
  copy.write('5\tfive\n')
  copy.destroy(new Error('the caller gave up'))
  await expect(finished(copy)).rejects.toThrow('the caller gave up')
  const [{ n }] = await owner.sql<{ n: number }[]>`SELECT 3 AS n`
  expect(n).toBe(3)
  expect((await rows()).map((r) => r.a)).toEqual([1, 2, 3])
})

test("another connection's statement waits while a COPY's data comes, then runs", async () => {
  const copy = await owner.sql`COPY copied (a, b) FROM STDIN`.writable()
  copy.write('6\tsix\n')
  let answered = false
  const other = client.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM copied`.then((r) => {
    answered = true
    return r[0]!.n
  })
  await Bun.sleep(200)
  expect(answered).toBe(false)
  copy.end('7\tseven\n')
  await finished(copy)
  // It ran after the COPY: it sees both rows.
  expect(await other).toBe(5)
})

test('a COPY in a transaction is undone with it', async () => {
  await expect(
    owner.sql.begin(async (tx) => {
      const copy = await tx`COPY copied (a, b) FROM STDIN`.writable()
      copy.end('8\teight\n')
      await finished(copy)
      expect((await tx<{ a: number }[]>`SELECT a FROM copied WHERE a = 8`).length).toBe(1)
      throw new Error('roll it back')
    }),
  ).rejects.toThrow('roll it back')
  expect((await rows()).map((r) => r.a)).toEqual([1, 2, 3, 6, 7])
})
