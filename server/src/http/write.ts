import { z } from 'zod'
import type { Caller } from '../core/caller.ts'
import type { Sql, Tx } from '../core/db.ts'
import { ConflictError, DomainError } from '../core/errors.ts'
import type { Operation, Services } from '../routes/operation.ts'
import { type Answer, dataBody, refusal } from './answer.ts'
import { readJsonObject } from './body.ts'
import { holdingKey, idempotencyKey, withIdempotency } from './idempotency.ts'
import { parseBody, parseQuery, searchOf } from './validation.ts'
import { transactionInTime } from '../store/driver/request-scope.ts'

type WriteOperation = Extract<Operation, { kind: 'write' }>

const SIMULATED = JSON.stringify({ data: { simulated: true } })
const NO_QUERY = z.strictObject({})

/** Thrown inside a test-mode write's transaction to undo everything it did. */
class Simulated extends Error {}

/**
 * A refusal the domain made that is a final answer, kept under the Idempotency-Key and replayed to
 * a retry with it: a refusal by the rules (not found, a rule, an allowance), and a conflict whose
 * refusal was itself recorded (so it must not be recorded twice). Not kept, so a retry with the key
 * runs again: any other conflict (the state may change) and every failure of ours.
 */
function isKept(err: unknown): err is DomainError {
  return err instanceof DomainError && (!(err instanceof ConflictError) || err.recorded)
}

/**
 * Steps 4 to 6 of a write: validate (before any transaction, so a malformed request is never kept
 * under its key), then run the domain rule in one transaction with its idempotency record and its
 * events. A test token's write runs every check, then rolls back and answers it was simulated.
 */
export async function write(sql: Sql, op: WriteOperation, request: Request, caller: Caller, requestId: string, services: Services): Promise<Answer> {
  const key = idempotencyKey(request)
  parseQuery(NO_QUERY, searchOf(request.url))
  const raw = await readJsonObject(request)
  const body = parseBody(op.body.schema, raw)

  const decide = async (handle: () => Promise<unknown>): Promise<Answer> => {
    let data: unknown
    try {
      data = await handle()
    } catch (err) {
      // The handler recorded why it refused: commit that record and answer the refusal (kept, see
      // isKept). Only agent operations record refusals, and agent credentials are never test mode.
      if (err instanceof ConflictError && err.recorded) return refusal(err, requestId, 'write')
      throw err
    }
    if (caller.mode === 'test') throw new Simulated()
    return { status: 201, body: dataBody(data) }
  }
  const runDomain = (tx: Tx) => decide(() => op.handler({ body, caller, tx, services }))

  // An operation that keeps itself atomic runs on the pool (a test-mode write still needs the
  // transaction it rolls back, and a keyed write the key's transaction).
  if (key === null && op.atomic === 'self' && caller.mode !== 'test') return decide(() => op.handler({ body, caller, tx: sql, services }))
  if (key === null) {
    try {
      return await transactionInTime(sql, (tx) => runDomain(tx))
    } catch (err) {
      if (err instanceof Simulated) return { status: 200, body: SIMULATED }
      throw err
    }
  }
  return holdingKey(caller, key, () =>
    transactionInTime(sql, (tx) =>
      withIdempotency(tx, { caller, key, requestId, request: { method: op.method, path: op.path, raw } }, async () => {
        try {
          return await tx.savepoint((sp) => runDomain(sp))
        } catch (err) {
          if (err instanceof Simulated) return { status: 200, body: SIMULATED }
          if (isKept(err)) return refusal(err, requestId, 'write')
          throw err
        }
      }),
    ),
  )
}
