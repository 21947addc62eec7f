import type { Sql } from '../../server/src/store/driver/db.ts'
import { literal, oneLine } from './statement-plans.ts'

/**
 * Whether a statement keeps to one workspace, read from its plan: EXPLAIN (VERBOSE) of it as a
 * custom plan (its parameters as literals), so every condition is printed with its table's alias.
 * No SQL parser is installed; the plan is the parse, after the planner's rewriting: a join on
 * `workspace_id` between two tables pinned to one workspace becomes a pin on each side (the
 * planner's equivalence classes), and a CTE read once is folded into the statement.
 *
 * The rule: every table holding `workspace_id` that the statement reads or writes (each side of a
 * join, subqueries, CTEs, the target of an UPDATE, DELETE or INSERT) has its `workspace_id` tied,
 * by equalities anywhere in the plan, to a literal; and every such literal is the same one. A
 * table joined to another on its id alone has no such tie, and is named.
 */
export type PlanNode = { [key: string]: unknown; 'Node Type': string; Plans?: PlanNode[] }

/**
 * The tables that hold `workspace_id`, with its position among their columns: an INSERT's plan
 * feeds it every column in order (a dropped one as a NULL), so its rows' workspace is found there.
 */
export async function workspaceTables(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ name: string; position: number }[]>`
    SELECT c.relname AS name,
           a.attnum - 1 AS position
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped
    WHERE c.relkind = 'r' AND n.nspname = current_schema()`
  return new Map(rows.map((r) => [r.name, r.position]))
}

class Rollback extends Error {}
let probes = 0

/** The custom plan of a statement with its parameters, VERBOSE; a write is planned, never run. `sql`: one connection. */
export async function verbosePlan(sql: Sql, query: string, params: unknown[], types: number[] = []): Promise<PlanNode> {
  const name = `scope_probe_${++probes}`
  let plan: PlanNode | undefined
  await sql
    .begin(async (tx) => {
      await tx.unsafe('SET LOCAL plan_cache_mode = force_custom_plan')
      await tx.unsafe(`PREPARE ${name} AS ${query}`)
      try {
        const args = params.length ? `(${params.map((p, i) => literal(p, types[i])).join(', ')})` : ''
        const [row] = await tx.unsafe(`EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE ${name}${args}`)
        plan = (row as unknown as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan
      } finally {
        await tx.unsafe(`DEALLOCATE ${name}`).catch(() => {})
      }
      throw new Rollback()
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw new Error(`cannot EXPLAIN ${oneLine(query)}: ${(err as Error).message}`)
    })
  return plan!
}

const CONDITIONS = ['Index Cond', 'Recheck Cond', 'Filter', 'Join Filter', 'Hash Cond', 'Merge Cond', 'One-Time Filter', 'TID Cond']
const SCANS = new Set(['Seq Scan', 'Index Scan', 'Index Only Scan', 'Bitmap Heap Scan', 'Tid Scan', 'Tid Range Scan', 'Sample Scan'])
const COLUMN = /^(?:"([^"]+)"|(\w+))\.workspace_id$/
const LITERAL = /^'((?:[^']|'')*)'::text$/

/** The top-level pieces of `s` split at `sep` (outside parentheses and quotes). */
function splitTop(s: string, sep: string): string[] {
  const out: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]
    if (ch === "'") quoted = !quoted
    else if (quoted) continue
    else if (ch === '(') depth++
    else if (ch === ')') depth--
    else if (depth === 0 && s.startsWith(sep, i)) {
      out.push(s.slice(start, i))
      start = i + sep.length
      i += sep.length - 1
    }
  }
  out.push(s.slice(start))
  return out.map((p) => p.trim())
}

/** `s` without the parentheses that wrap all of it. */
function unwrap(s: string): string {
  let t = s.trim()
  while (t.startsWith('(') && t.endsWith(')') && balanced(t.slice(1, -1))) t = t.slice(1, -1).trim()
  return t
}
function balanced(s: string): boolean {
  let depth = 0
  let quoted = false
  for (const ch of s) {
    if (ch === "'") quoted = !quoted
    else if (quoted) continue
    else if (ch === '(') depth++
    else if (ch === ')' && --depth < 0) return false
  }
  return depth === 0
}

/** A term of an equality as a node of the tie graph: `a:alias` for alias.workspace_id, `v:value` for a text literal. */
function term(expr: string): string | undefined {
  const t = unwrap(expr)
  const col = COLUMN.exec(t)
  if (col) return `a:${col[1] ?? col[2]}`
  const lit = LITERAL.exec(t)
  if (lit) return `v:${lit[1]!.replace(/''/g, "'")}`
  return undefined
}

/** A Postgres array literal's elements: `{a,"b c"}`. */
function arrayElements(text: string): string[] {
  const inner = text.slice(1, -1)
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!
    if (ch === '\\' && quoted) cur += inner[++i] ?? ''
    else if (ch === '"') quoted = !quoted
    else if (ch === ',' && !quoted) {
      out.push(cur)
      cur = ''
    } else cur += ch
  }
  if (inner.length) out.push(cur)
  return out
}

/**
 * The values a set-returning function of the plan yields in one column, read from its literal
 * arguments: `unnest('{..}'::text[]), unnest(..)` (the column `unnest`, `unnest_1`, ... is the
 * array of that position) or `jsonb_to_recordset('[..]'::jsonb)` (the key of that name). Undefined
 * when the plan does not say (columns named in an alias of several unnest calls).
 */
function functionValues(node: PlanNode, alias: string, column: string): string[] | undefined {
  const call = node['Function Call']
  if (typeof call !== 'string') return undefined
  const calls = splitTop(call, ', ')
  const literalOf = (c: string, type: string) => {
    const m = new RegExp(`^\\w+\\('((?:[^']|'')*)'::${type}\\)$`).exec(c)
    return m ? m[1]!.replace(/''/g, "'") : undefined
  }
  if (calls.every((c) => c.startsWith('unnest('))) {
    const position = column === alias ? 0 : column.startsWith(`${alias}_`) ? Number(column.slice(alias.length + 1)) : calls.length === 1 ? 0 : NaN
    const array = Number.isInteger(position) ? literalOf(calls[position] ?? '', 'text\\[\\]') : undefined
    return array === undefined ? undefined : arrayElements(array)
  }
  if (calls.length === 1 && /^jsonb?_to_recordset\(/.test(calls[0]!)) {
    const json = literalOf(calls[0]!, 'jsonb?')
    if (json === undefined) return undefined
    return (JSON.parse(json) as Record<string, unknown>[]).map((row) => String(row[column]))
  }
  return undefined
}

/**
 * What keeps the statement of `plan` from staying in one workspace (`problems`, empty when nothing
 * does), and how many reads and writes of workspace tables it checked.
 */
export function workspaceScopeProblems(plan: PlanNode, tables: Map<string, number>): { checked: number; problems: string[] } {
  const parent = new Map<string, string>()
  const find = (x: string): string => {
    const p = parent.get(x) ?? x
    if (p === x) return x
    const r = find(p)
    parent.set(x, r)
    return r
  }
  const union = (a: string, b: string) => {
    for (const x of [a, b]) if (!parent.has(x)) parent.set(x, x)
    parent.set(find(a), find(b))
  }
  const targets: { what: string; node: string }[] = []
  const nodes: PlanNode[] = []
  const walk = (n: PlanNode) => {
    nodes.push(n)
    for (const c of n.Plans ?? []) walk(c)
  }
  walk(plan)
  const functions = new Map(nodes.filter((n) => n['Node Type'] === 'Function Scan' && typeof n.Alias === 'string').map((n) => [n.Alias as string, n]))
  const subplans = new Map(nodes.filter((n) => typeof n['Subplan Name'] === 'string').map((n) => [n['Subplan Name'] as string, n]))

  for (const n of nodes) {
    // Equalities between workspace ids and literals, wherever the plan checks them.
    for (const key of CONDITIONS) {
      const cond = n[key]
      if (typeof cond !== 'string') continue
      for (const conjunct of splitTop(unwrap(cond), ' AND ')) {
        const sides = splitTop(unwrap(conjunct), ' = ')
        if (sides.length !== 2) continue
        const [l, r] = sides.map(term)
        if (l && r) union(l, r)
      }
    }
    const relation = n['Relation Name'] as string | undefined
    const alias = (n.Alias as string | undefined) ?? relation
    if (relation !== undefined && tables.has(relation)) {
      if (SCANS.has(n['Node Type'])) targets.push({ what: `${relation} ${alias}`, node: `a:${alias}` })
      else if (n['Node Type'] === 'ModifyTable' && n.Operation === 'Insert') {
        // The rows' workspace: the column at workspace_id's position in what the insert is fed.
        const fed = (n.Plans ?? []).find((c) => c['Parent Relationship'] === 'Outer')
        const expr = (fed?.Output as string[] | undefined)?.[tables.get(relation)!]
        const t = expr === undefined ? undefined : term(expr)
        const node = `insert:${relation}:${alias}`
        if (t) union(node, t)
        // What it returns (RETURNING, read by a CTE) is the rows it inserted.
        union(`a:${alias}`, node)
        // Rows fed by a function of arrays or JSON: the workspaces they name.
        const fn = expr === undefined ? undefined : /^(\w+)\.(\w+)$/.exec(expr)
        if (fn && functions.has(fn[1]!)) for (const v of functionValues(functions.get(fn[1]!)!, fn[1]!, fn[2]!) ?? []) union(node, `v:${v}`)
        targets.push({ what: `the rows inserted into ${relation}${expr ? ` (workspace_id from ${expr})` : ''}`, node })
      }
    }
    // A CTE's or a subquery's workspace_id is the one its plan returns.
    const source =
      n['Node Type'] === 'CTE Scan' ? subplans.get(`CTE ${n['CTE Name'] as string}`)
      : n['Node Type'] === 'Subquery Scan' ? n.Plans?.[0]
      : undefined
    if (source && typeof n.Alias === 'string') {
      const ids = ((source.Output as string[] | undefined) ?? []).map(term).filter((t) => t?.startsWith('a:'))
      if (ids.length === 1) union(`a:${n.Alias}`, ids[0]!)
    }
  }

  // A function's workspace_id column (a batch's), compared to a table's: the workspaces it names.
  for (const [alias, n] of functions) {
    if (parent.has(`a:${alias}`)) for (const v of functionValues(n, alias, 'workspace_id') ?? []) union(`a:${alias}`, `v:${v}`)
  }

  const values = (node: string) => [...new Set([...parent.keys(), node].filter((k) => k.startsWith('v:') && find(k) === find(node)))]
  const problems: string[] = []
  const pinned = new Set<string>()
  for (const t of targets) {
    const v = values(t.node)
    if (v.length === 0) problems.push(`${t.what}: workspace_id is not filtered on, nor joined on to a table that is`)
    else if (v.length > 1) problems.push(`${t.what}: workspace_id is tied to several workspaces (${v.join(', ')})`)
    for (const x of v) pinned.add(x)
  }
  if (pinned.size > 1 && !problems.length) problems.push(`the statement spans workspaces: ${[...pinned].map((v) => v.slice(2)).join(', ')}`)
  return { checked: targets.length, problems }
}

/** Tables that hold no workspace's rows: the plans every workspace reads, and the migrations' bookkeeping. */
export const SHARED_TABLES = ['plans', 'schema_migrations']

/**
 * What the catalog holds against sharding by workspace_id: a table without it (besides
 * SHARED_TABLES), an index or key (primary, unique or plain) whose first column is not it, a
 * foreign key between workspace tables that does not carry it on both sides.
 */
export async function catalogProblems(sql: Sql): Promise<string[]> {
  const rows = await sql<{ problem: string }[]>`
    WITH t AS (
      SELECT c.oid, c.relname,
             (SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped) AS ws
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema() AND c.relname <> ALL (${SHARED_TABLES})
    )
    SELECT 'table ' || t.relname || ' has no workspace_id' AS problem FROM t WHERE t.ws IS NULL
    UNION ALL
    SELECT 'index ' || i.indexrelid::regclass::text || ' on ' || t.relname || ' does not start with workspace_id'
    FROM t JOIN pg_index i ON i.indrelid = t.oid WHERE t.ws IS NOT NULL AND i.indkey[0] <> t.ws
    UNION ALL
    SELECT 'foreign key ' || con.conname || ' of ' || t.relname || ' does not carry workspace_id to ' || f.relname
    FROM t JOIN pg_constraint con ON con.conrelid = t.oid AND con.contype = 'f'
    JOIN t f ON f.oid = con.confrelid
    WHERE NOT EXISTS (SELECT 1 FROM generate_subscripts(con.conkey, 1) k WHERE con.conkey[k] = t.ws AND con.confkey[k] = f.ws)
    ORDER BY 1`
  return rows.map((r) => r.problem)
}
