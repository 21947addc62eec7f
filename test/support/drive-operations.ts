import { expect } from 'bun:test'
import { z } from 'zod'
import type { DemoWorkspace } from '../../server/src/demo/index.ts'
import { operations } from '../../server/src/http/operations.ts'
import { querySchemaOf } from '../../server/src/http/paging.ts'
import type { Operation } from '../../server/src/routes/operation.ts'
import { exampleRequest } from '../../scripts/example-requests.ts'

/**
 * Records the statements a server sends, by what caused them: pass `record` as the `debug` of
 * openDatabase and startServer, and run the work inside `during(label, ...)`. Only statements that
 * read or write rows are kept (not the driver's catalog reads).
 */
export type Recorded = { operation: string; query: string; params: unknown[]; types: number[] }

export function statementRecorder() {
  let recording: string | undefined
  const recorded: Recorded[] = []
  return {
    recorded,
    record: (_c: number, query: string, params: unknown[], types: number[]) => {
      if (recording && /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b/i.test(query) && !query.includes('pg_catalog.')) {
        recorded.push({ operation: recording, query, params: [...params], types: [...types] })
      }
    },
    async during<T>(label: string, fn: () => Promise<T>): Promise<T> {
      recording = label
      try {
        return await fn()
      } finally {
        recording = undefined
      }
    },
  }
}
export type StatementRecorder = ReturnType<typeof statementRecorder>

/** Each value a list's or a read's enumerated filter takes, one request each (besides the example). */
function filterVariants(op: Operation): Record<string, string>[] {
  if (op.kind === 'write') return []
  const json = z.toJSONSchema(querySchemaOf(op), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { enum?: string[] }> }
  return Object.entries(json.properties ?? {}).flatMap(([name, prop]) => (prop.enum ?? []).map((v) => ({ [name]: v })))
}

/**
 * Sends every operation of the server's OpenAPI document, its documented example with the example
 * ids swapped for the demo workspace's, once more for each value of each enumerated filter, and the
 * second page of a list through its cursor; `askedAgain` operations twice. Each request must answer
 * 200 or 201. Returns the documented operation ids, the requests answered, and each request's
 * statement count (by operation and path).
 */
export async function driveEveryOperation(
  base: string,
  demo: DemoWorkspace,
  recorder: StatementRecorder,
  askedAgain: Set<string> = new Set(),
): Promise<{ documented: string[]; answered: string[]; statementsPerRequest: { request: string; statements: number }[] }> {
  const document = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> }
  const documented = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((m) => m.operationId))
  const byId = new Map(operations.map((op) => [op.operationId, op]))
  const context = { demo, base }
  const answered: string[] = []
  const statementsPerRequest: { request: string; statements: number }[] = []
  for (const operationId of documented) {
    const op = byId.get(operationId)
    expect(op, `${operationId} is in the document but not in the table`).toBeDefined()
    if (op!.kind === 'item' && op!.bare) continue
    for (const query of [undefined, ...filterVariants(op!)]) {
      const req = await exampleRequest(op!, context, query)
      const before = recorder.recorded.length
      await recorder.during(operationId, async () => {
        let res = await fetch(`${base}/api/v1${req.path}`, req.init)
        let body = (await res.json()) as { meta?: Record<string, unknown> }
        answered.push(`${operationId} ${res.status}`)
        expect(`${operationId} ${req.path} ${res.status}`).toMatch(/ 20[01]$/)
        if (askedAgain.has(operationId)) {
          res = await fetch(`${base}/api/v1${req.path}`, req.init)
          expect(`${operationId} again ${res.status}`).toBe(`${operationId} again 201`)
          body = (await res.json()) as typeof body
        }
        // The second page too, through its cursor.
        const next = body.meta?.nextCursor ?? body.meta?.nextBefore
        if (op!.kind === 'list' && typeof next === 'string') {
          const param = body.meta?.nextBefore !== undefined ? 'before' : op!.paging.style === 'stream' ? 'after' : 'cursor'
          res = await fetch(`${base}/api/v1${req.path}${req.path.includes('?') ? '&' : '?'}${param}=${encodeURIComponent(next)}`, req.init)
          body = await res.json()
          expect(`${operationId} page 2 ${res.status}`).toBe(`${operationId} page 2 200`)
        }
      })
      statementsPerRequest.push({ request: `${operationId} ${req.path}`, statements: recorder.recorded.length - before })
    }
  }
  return { documented, answered, statementsPerRequest }
}
