import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getHarness } from '../harness.ts'
import { needsPostgres, type ServerProcess, startCluster, stopAll } from './cluster.ts'
import { rateLimitAcross } from './scenarios.ts'

/**
 * Three server processes on one PostgreSQL database: a workspace token is answered exactly 600
 * times in its hour and an agent credential exactly 1,200 times (spec: Limits; there is no plan
 * with a smaller limit and no setting for it), however the requests are spread over the processes.
 */
if (needsPostgres) console.warn(`skipped test/faults/rate-limit-cluster.test.ts: ${needsPostgres}`)

describe.skipIf(Boolean(needsPostgres))('rate limits across 3 server processes', () => {
  let servers: ServerProcess[] = []
  beforeAll(async () => {
    await getHarness()
    servers = await startCluster(3)
  }, 60_000)
  afterAll(() => stopAll(servers))

  test('exactly 600 per workspace token and 1,200 per agent credential in the hour, 429 past them', async () => {
    const { problems, figures } = await rateLimitAcross(servers)
    console.log(`rate limits across 3 processes: ${figures.join('; ')}`)
    expect(problems).toEqual([])
  }, 120_000)
})
