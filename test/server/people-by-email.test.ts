import { expect, test } from 'bun:test'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * "Mail me a sign-in link" finds a person by email before any workspace is known
 * (store/people.ts selectPeopleWithEmail): one probe of an index on the email, not a read of every
 * person of every workspace. Read with 3,000 people in 30 workspaces, inside a transaction that is
 * rolled back.
 */
test('the sign-in lookup by email across workspaces probes an index on the email', async () => {
  const { sql } = await getHarness()
  const workspaces = await Promise.all(Array.from({ length: 30 }, () => makeWorkspace()))
  let plan = ''
  await sql
    .begin(async (tx) => {
      await tx`
        INSERT INTO people (workspace_id, id, email, name, role)
        SELECT w.id, 'per_cost' || g, 'person' || g || '@example.com', 'Person ' || g, 'viewer'
        FROM unnest(${workspaces.map((w) => w.id)}::text[]) AS w(id), generate_series(1, 100) AS g`
      await tx`ANALYZE people`
      const [row] = await tx.unsafe(`EXPLAIN (FORMAT JSON) SELECT * FROM people WHERE email = 'person7@example.com' AND removed_at IS NULL ORDER BY workspace_id, id`)
      plan = JSON.stringify((row as Record<string, unknown>)['QUERY PLAN'])
      throw new Error('rolled back')
    })
    .catch((error) => {
      if ((error as Error).message !== 'rolled back') throw error
    })
  expect(plan).toContain('"Index Name":"people_by_email"')
  expect(plan).not.toContain('Seq Scan')
})
