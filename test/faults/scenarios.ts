import { WINDOW_MS } from '../../server/src/http/rate-limit.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { type Reply, send, type ServerProcess, startServerProcess } from './cluster.ts'
import { judgeAnswers, prepareWrite, type PreparedWrite, WRITE_KINDS, type WriteKind } from './writes.ts'
import { withinOneWindow } from '../support/clock-window.ts'

/**
 * The fault suite's scenarios, each a function of the servers it runs against, so the same proof
 * runs against servers on PostgreSQL directly and behind PgBouncer (pgbouncer.test.ts).
 */

export type Summary = { lines: string[] }

// ---------------------------------------------------------------------------------------------
// 1. One Idempotency-Key, many concurrent requests, several processes.

/**
 * `trials` trials, the write kinds in turn: each sends `concurrency` identical requests under one
 * new key at once, spread over the servers in turn, and holds the answers to the contract
 * (judgeAnswers) and the database to exactly one effect. Then one more request with the key must be
 * a replay. Returns the problems (empty when every trial held) and what the answers were.
 */
export async function idempotencyTrials(servers: ServerProcess[], trials: number, concurrency = 30, kinds: WriteKind[] = WRITE_KINDS) {
  const problems: string[] = []
  const tally: Record<string, number> = { first: 0, replayed: 0, conflict: 0 }
  const prepare = (t: number) => prepareWrite(kinds[t % kinds.length]!, servers[t % servers.length]!.base)
  // The next trial's workspace is made while this one's requests run.
  let next = prepare(0)
  for (let t = 0; t < trials; t++) {
    const kind = kinds[t % kinds.length]!
    const w = await next
    if (t + 1 < trials) next = prepare(t + 1)
    const key = `trial-${t}-${crypto.randomUUID()}`
    const fire = (i: number) =>
      send(servers[(i + t) % servers.length]!.base, 'POST', w.path, { token: w.token, body: w.body, headers: { 'Idempotency-Key': key } })
    const replies = await Promise.all(Array.from({ length: concurrency }, (_, i) => fire(i)))
    const after = await fire(t)
    const found = judgeAnswers(replies)
    const first = replies.find((r) => r.headers.get('idempotent-replayed') === null && r.status !== 409)
    if (after.headers.get('idempotent-replayed') !== 'true' || (first && after.text !== first.text)) found.push(`the request after the burst is not a replay of the first answer: ${after.status} ${after.text.slice(0, 200)}`)
    const effect = await w.effect()
    if (JSON.stringify(effect) !== JSON.stringify(w.once)) found.push(`effect ${JSON.stringify(effect)}, expected exactly ${JSON.stringify(w.once)}`)
    for (const r of replies) {
      if (r.status === 409) tally.conflict!++
      else if (r.headers.get('idempotent-replayed') === 'true') tally.replayed!++
      else tally.first!++
    }
    if (found.length) problems.push(`trial ${t} (${kind}, key ${key}, workspace ${w.workspaceId}):\n    ${found.join('\n    ')}`)
  }
  return { problems, tally }
}

// ---------------------------------------------------------------------------------------------
// 2. Rate limits across processes.

/**
 * For a workspace token (600 an hour) and an agent credential (1,200 an hour): `limit + extra`
 * requests at once, spread over the servers. Exactly `limit` are answered (200) and the rest are 429
 * `rate_limited` with a positive Retry-After; the X-RateLimit-Remaining of the answered ones are
 * each of limit-1 .. 0 exactly once (every request counted once, across processes).
 */
export async function rateLimitAcross(servers: ServerProcess[], extra = 40) {
  // The window is the clock hour (each process's own clock): stay clear of its end, or the count
  // would be split between two windows.
  await withinOneWindow(WINDOW_MS, 30_000)
  const ws = await makeWorkspace()
  const problems: string[] = []
  const figures: string[] = []
  for (const [who, token, path, limit] of [
    ['workspace token', ws.live, '/missions', 600],
    ['agent credential', ws.agent.credential, '/agent/me', 1200],
  ] as const) {
    const total = limit + extra
    const replies: Reply[] = []
    // In waves of 100 at once, so that the client's own sockets are not the bottleneck.
    for (let start = 0; start < total; start += 100) {
      const wave = Array.from({ length: Math.min(100, total - start) }, (_, i) => send(servers[(start + i) % servers.length]!.base, 'GET', path, { token }))
      replies.push(...(await Promise.all(wave)))
    }
    const ok = replies.filter((r) => r.status === 200)
    const limited = replies.filter((r) => r.status === 429)
    const other = replies.filter((r) => r.status !== 200 && r.status !== 429)
    figures.push(`${who}: ${ok.length} answered, ${limited.length} refused 429 of ${total} sent to ${servers.length} processes`)
    if (ok.length !== limit) problems.push(`${who}: ${ok.length} answered, expected exactly ${limit}`)
    if (limited.length !== extra) problems.push(`${who}: ${limited.length} refused, expected exactly ${extra}`)
    if (other.length) problems.push(`${who}: other answers: ${other.map((r) => r.status).join(',')}`)
    const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)
    const expected = Array.from({ length: limit }, (_, i) => i)
    if (JSON.stringify(remaining) !== JSON.stringify(expected)) problems.push(`${who}: X-RateLimit-Remaining is not each of 0..${limit - 1} once`)
    for (const r of limited) {
      if (r.body?.error?.code !== 'rate_limited' || !(Number(r.headers.get('retry-after')) > 0)) {
        problems.push(`${who}: a 429 without rate_limited and a positive Retry-After: ${r.text.slice(0, 200)}`)
        break
      }
    }
    if (ok.some((r) => r.headers.get('x-ratelimit-limit') !== String(limit))) problems.push(`${who}: X-RateLimit-Limit is not ${limit}`)
  }
  return { problems, figures }
}

// ---------------------------------------------------------------------------------------------
// 3. kill -9 during writes.

type Pending = { w: PreparedWrite; key: string; acknowledged?: Reply; attempts: number; replays: number; lastFailure?: string }
/** Tries of one write before the test gives up on it (a kill and restart take a few dozen at most). */
const MAX_ATTEMPTS = 1000

/**
 * `writes` writes (the kinds in turn, each in its own workspace) sent `parallel` at a time to one
 * server process, which is killed with SIGKILL at random moments (0..100 ms after it has answered 1 to 5 writes; at
 * most `maxKills` times) and restarted
 * each time. A write that got no answer is retried with the same key until it gets one. Then: every
 * write has exactly one effect, and every answer is a correct one (a replay where the write had
 * committed before the kill). `startEnv` is passed to every server start.
 */
export async function killDuringWrites(writes: number, opts: { parallel?: number; startEnv?: Record<string, string>; seed?: number; maxKills?: number } = {}) {
  const parallel = opts.parallel ?? 4
  const maxKills = opts.maxKills ?? 20
  let rnd = opts.seed ?? 1
  const random = () => ((rnd = (Math.imul(rnd, 1_103_515_245) + 12_345) >>> 0), rnd / 2 ** 32)
  let server = await startServerProcess(opts.startEnv)
  let restarting: Promise<void> | undefined
  let kills = 0
  const prepared: Pending[] = []
  for (let i = 0; i < writes; i++) {
    prepared.push({ w: await prepareWrite(WRITE_KINDS[i % WRITE_KINDS.length]!, server.base), key: `kill-${i}-${crypto.randomUUID()}`, attempts: 0, replays: 0 })
  }

  let done = false
  let answeredHere = 0
  const killer = (async () => {
    while (!done) {
      // Once this process has answered 1 to 5 writes (so every start makes progress, and the kills
      // spread over the whole run), at a random moment: the writers are busy all the time, so the
      // kill lands among writes in flight. At most maxKills, so the run's time stays bounded.
      const threshold = 1 + Math.floor(random() * 5)
      while (!done && answeredHere < threshold) await Bun.sleep(5)
      await Bun.sleep(random() * 100)
      if (done || kills >= maxKills) break
      const victim = server
      restarting = (async () => {
        await victim.kill()
        kills++
        server = await startServerProcess(opts.startEnv)
        answeredHere = 0
      })()
      await restarting
      restarting = undefined
    }
  })()

  async function drive(p: Pending) {
    while (!p.acknowledged) {
      if (restarting) await restarting
      // Bounded, so an answer that is wrong every time (not in the document, a 409 that never ends)
      // fails the test naming it instead of running into its time-out.
      if (++p.attempts > MAX_ATTEMPTS) throw new Error(`${p.w.kind} ${p.key}: no acceptable answer in ${MAX_ATTEMPTS} attempts; the last: ${p.lastFailure}`)
      try {
        const r = await send(server.base, 'POST', p.w.path, { token: p.w.token, body: p.w.body, headers: { 'Idempotency-Key': p.key }, signal: AbortSignal.timeout(20_000) })
        // 409: the first attempt is still being answered by a process that may have died; retry shortly.
        if (r.status === 409 && r.body?.error?.message?.includes('still being answered')) {
          p.lastFailure = `409 ${r.body.error.message}`
          await Bun.sleep(50)
          continue
        }
        p.acknowledged = r
        answeredHere++
        if (r.headers.get('idempotent-replayed') === 'true') p.replays++
      } catch (err) {
        // No answer: the process died under the request. Retry with the same key.
        p.lastFailure = (err as Error).message
        await Bun.sleep(20)
      }
    }
  }

  const problems: string[] = []
  try {
    const queue = [...prepared]
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        for (let p = queue.shift(); p; p = queue.shift()) await drive(p)
      }),
    )
    done = true
    await killer
    for (const p of prepared) {
      const r = p.acknowledged!
      if (r.status !== 201) problems.push(`${p.w.kind} ${p.key}: answered ${r.status} ${r.text.slice(0, 200)}`)
      const effect = await p.w.effect()
      if (JSON.stringify(effect) !== JSON.stringify(p.w.once)) problems.push(`${p.w.kind} ${p.key}: effect ${JSON.stringify(effect)}, expected exactly ${JSON.stringify(p.w.once)} (${p.attempts} attempts)`)
      // The answer kept under the key is the one the client was given (first or replayed).
      const again = await send(server.base, 'POST', p.w.path, { token: p.w.token, body: p.w.body, headers: { 'Idempotency-Key': p.key } })
      if (again.headers.get('idempotent-replayed') !== 'true' || again.text !== r.text) problems.push(`${p.w.kind} ${p.key}: a later retry is not a replay of the answer given: ${again.status} ${again.text.slice(0, 200)} vs ${r.text.slice(0, 200)}`)
    }
  } finally {
    done = true
    await killer.catch(() => {})
    await server.kill()
  }
  const retried = prepared.filter((p) => p.attempts > 1).length
  const replayed = prepared.filter((p) => p.replays > 0).length
  return { problems, kills, retried, replayed }
}

// ---------------------------------------------------------------------------------------------
// 3b. The window after the commit and before the answer.

/**
 * A write sent on a raw socket whose answer the client never reads: the client watches the database
 * until the write's idempotency record has committed, then kills the server with SIGKILL and drops
 * the socket. From the client's side this is the window after the commit and before the answer (it
 * has no answer, the write is done). After a restart, the retry with the same key must be a replay
 * (`Idempotent-Replayed: true`) of an answer naming the record that exists, and the effect must be
 * exactly one. Repeated for each write kind.
 */
export async function killAfterCommit(startEnv?: Record<string, string>) {
  const { sql } = await getHarness()
  const problems: string[] = []
  let server = await startServerProcess(startEnv)
  try {
    for (const kind of WRITE_KINDS) {
      const w = await prepareWrite(kind, server.base)
      const key = `after-commit-${kind}-${crypto.randomUUID()}`
      const url = new URL(`${server.base}${w.path}`)
      const body = JSON.stringify(w.body)
      const head = [
        `POST ${url.pathname} HTTP/1.1`,
        `Host: ${url.host}`,
        `Authorization: Bearer ${w.token}`,
        'Content-Type: application/json',
        `Idempotency-Key: ${key}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        '',
      ].join('\r\n')
      // The client sends, and reads nothing: whatever the server answers is never seen.
      const socket = await Bun.connect({ hostname: url.hostname, port: Number(url.port), socket: { data() {}, error() {}, close() {} } })
      socket.write(head + body)
      let committed = false
      for (const until = Date.now() + 20_000; !committed && Date.now() < until; ) {
        const [row] = await sql`SELECT 1 FROM idempotency_keys WHERE workspace_id = ${w.workspaceId} AND key = ${key}`
        committed = Boolean(row)
        if (!committed) await Bun.sleep(1)
      }
      await server.kill()
      socket.end()
      if (!committed) {
        problems.push(`${kind}: the write never committed`)
        server = await startServerProcess(startEnv)
        continue
      }
      server = await startServerProcess(startEnv)
      const retry = await send(server.base, 'POST', w.path, { token: w.token, body: w.body, headers: { 'Idempotency-Key': key } })
      if (retry.status !== 201 || retry.headers.get('idempotent-replayed') !== 'true') problems.push(`${kind}: the retry after the kill answered ${retry.status} replayed=${retry.headers.get('idempotent-replayed')} ${retry.text.slice(0, 200)}`)
      const effect = await w.effect()
      if (JSON.stringify(effect) !== JSON.stringify(w.once)) problems.push(`${kind}: effect ${JSON.stringify(effect)}, expected exactly ${JSON.stringify(w.once)}`)
      // The replayed answer names the record that exists.
      const id = retry.body?.data?.id ?? retry.body?.data?.authorizationId ?? retry.body?.data?.results?.[0]?.contactId ?? retry.body?.data?.runs?.[0]?.id
      const [exists] = id ? await sql.unsafe(`SELECT 1 FROM ${table(kind)} WHERE workspace_id = $1 AND id = $2`, [w.workspaceId, id]) : []
      if (!exists) problems.push(`${kind}: the replayed answer names ${id}, which is not in ${table(kind)}`)
    }
  } finally {
    await server.kill()
  }
  return { problems }
}

const table = (kind: WriteKind) =>
  ({ createExperiment: 'experiments', createAction: 'actions', importContacts: 'contacts', trackEvent: 'workflow_runs', authorizeAgentAction: 'agent_requests', reportAgentResult: 'agent_results' })[kind]
