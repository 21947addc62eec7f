import type { Caller } from '../core/caller.ts'
import type { Sql } from '../core/db.ts'
import type { Operation } from '../routes/operation.ts'
import { type Answer, dataBody } from './answer.ts'
import { querySchemaOf, readPage } from './paging.ts'
import { parseQuery } from './validation.ts'

type ReadOperation = Extract<Operation, { kind: 'item' | 'list' }>

/** Steps 4 and 5 of a read: validate the query, then answer from the domain (a list one page at a time). */
export async function read(sql: Sql, op: ReadOperation, search: URLSearchParams, caller: Caller | undefined): Promise<Answer> {
  const query = parseQuery(querySchemaOf(op), search) as Record<string, unknown>
  if (op.kind === 'item') {
    const result = await op.handler({ query, caller, sql })
    return { status: 200, body: op.bare ? JSON.stringify(result) : dataBody(result) }
  }
  const page = await readPage(op, query, caller!, (p) => op.handler({ query, caller: caller!, sql, page: p }))
  return { status: 200, body: dataBody(page.data, page.meta) }
}
