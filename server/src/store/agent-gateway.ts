import type { Db } from '../core/db.ts'
import type { MissingFacts } from '../core/enums.ts'
import type { EventAppend } from './events.ts'
import { eventCtes, eventsNotified } from './events.ts'
import type { AgentRow } from './agents.ts'
import type { RequestInsert } from './agent-requests.ts'
import type { RuleRow } from './agent-rules.ts'
import type { ToolActionJson } from './agent-tools.ts'
import type { WorkspaceLimitsRow } from './limits.ts'
import type { WorkspaceGate } from './workspaces.ts'

/**
 * The agent gateway's two statements (POST /agent/authorize): what a decision is judged against,
 * read in one statement (and left out when the agent asks again: the view kept from the last read
 * is checked in the recording statement instead, agent-gateway-view-cache.ts), and the decision recorded in one statement (the allowance, the request,
 * the agent's last act and the events with their deliveries). The rows that every request of a
 * workspace must lock (the allowance counter and the event sequence) are taken only in that last
 * statement, so they are held from there to the commit and no longer.
 *
 * The read costs the same however many tools and rules the workspace holds: the asked tool and its
 * asked action by their keys, the rules that could match the request (rule_matches: those naming
 * the tool with this action or with every action), the tools those rules name (for their
 * sentences), and how many rules are in force (a counter on the workspace). Only a refusal needs a
 * list: the tool's action keys when it has no such action are read here only then; the workspace's
 * tool keys when it has no such tool, by a statement of their own (agent-tools.ts selectToolKeys)
 * sent only then.
 */

type GatewayTool = {
  key: string
  name: string
  /** The asked action, when the tool has it. */
  action: ToolActionJson | null
  /** The tool's action keys, oldest first: read only when it has not the asked action. */
  actionKeys: string[] | null
}

/** The agent as a decision sees it (not when it last acted, which every decision changes). */
type GatewayAgent = Pick<AgentRow, 'id' | 'name' | 'ceilings' | 'data_access' | 'max_unattended_risk' | 'permissions'>

export type GatewayView = {
  gate: WorkspaceGate & { rules_in_force: number; /** What a rule, ceiling or limit does with a fact not stated (the workspace's policy). */ missing_facts: MissingFacts }
  agent: GatewayAgent | null
  /** The asked tool, when the workspace has it. */
  tool: GatewayTool | null
  limits: WorkspaceLimitsRow | null
  /** The rules in force that could match the request (a rule naming the tool with this action or with none), oldest first. */
  rules: RuleRow[]
  /** The names of the tools these rules name, by key, and of the actions they name, by 'tool.action' (rule sentences). */
  toolNames: Record<string, string>
  /** The names of the agents these rules name, by id. */
  agentNames: Record<string, string>
  /** For each window a count condition of these rules names (24h), the agent's allowed requests of the asked tool action within it. */
  allowedCounts: Record<string, number>
  /**
   * For each of those windows, where its count stopped (one past the largest figure a condition
   * compares it with): recording counts again to the same point (DecisionToRecord's countsUsed).
   * Absent from a view made from a policy in memory, which is never recorded against.
   */
  countCaps?: Record<string, number>
  /** The workspace's tool keys, when the view already knows them (a view made from a policy in memory); else read on refusal. */
  toolKeys?: string[]
}

/**
 * A view as read, with the digest of what the database held: a decision judged against a view
 * read earlier is recorded only if the database still holds exactly that (recordDecisions'
 * `viewDigest`), so such a decision is as current as one judged against a read of its own.
 */
export type ReadView = { view: GatewayView; digest: string; /** The view's size as the database wrote it, in bytes. */ size: number }

/** One decision's ask: the agent and the tool action it asks for. */
export type GatewayAsk = { agentId: string; tool: string; action: string }

type ViewJson = {
  gate: (Omit<GatewayView['gate'], 'stopped_at'> & { stopped_at: string | null }) | null
  agent: GatewayAgent | null
  tool: GatewayTool | null
  limits: WorkspaceLimitsRow | null
  rules: (Omit<RuleRow, 'created_at'> & { created_at: string })[]
}

type Fragment = ReturnType<Db['unsafe']>

const date = (s: string | null) => (s === null ? null : new Date(s))

/**
 * For each row of `asks` (columns n, agent_id, tool, action), everything its decision is judged
 * against as one json value, `view`, with the SHA-256 of its text, `digest`, and its length in
 * bytes, `size`: the workspace's gate (stop switch, rules version, rules in force) and limits, the
 * agent, the asked tool and action, and the rules that could match. The same SQL reads a view
 * (selectGatewayView) and checks that one still holds (recordDecisions), so the check covers exactly
 * what a decision was judged against. Its reads do not grow with the workspace's tools or rules.
 *
 * Beside the view, outside its digest, when `read` (not at the check):
 * - the names of the tools, actions and agents those rules name (their sentences): they change only
 *   with an applied policy, which moves the rules version the view holds;
 * - for each window a count condition of those rules names, how often the agent was already allowed
 *   the asked tool action within it (`allowed_counts`), stopping one past the largest figure a
 *   condition compares it with (`count_caps`): it costs what the rules' figures say, not what the
 *   history holds, and a condition compares the same either way. A count changes with every request
 *   allowed, and a decision reads one only when a rule's conditions on facts all held
 *   (Verdict.countsRead): so the counts a decision read are checked at recording on their own
 *   (allowedCount, by that statement's now()), and a kept view whose counts moved still holds for
 *   the decisions that read none.
 */
function viewsOf(sql: Db, workspaceId: string, asks: Fragment, opts: { read: boolean }) {
  const readColumns = opts.read
    ? sql`, names.tool_names, agent_names.agent_names, octet_length(names.tool_names::text) + octet_length(agent_names.agent_names::text) AS names_size,
         counts.allowed_counts, counts.count_caps`
    : sql``
  // c: the rules in force naming the tool with the action or with every action, each found by its
  // key (LIMIT 1 keeps it a lookup per match, whatever the planner's figures say).
  return sql`
    SELECT q.n, v.view, encode(sha256(convert_to(vt.text, 'UTF8')), 'hex') AS digest, octet_length(vt.text) AS size
           ${opts.read ? sql`, v.tool_names, v.agent_names, v.names_size, v.allowed_counts, v.count_caps` : sql``}
    FROM (${asks}) q
    CROSS JOIN LATERAL (
      SELECT json_build_object(
        'gate',
        -- stopped_by: a person by their name, anyone else by the line recorded (as store/workspaces.ts reads it).
        (SELECT json_build_object('agents_stopped', w.agents_stopped, 'rules_version', w.rules_version, 'rules_in_force', w.rules_in_force,
                                  'missing_facts', w.missing_facts, 'stopped_at', s.created_at,
                                  'stopped_by', COALESCE((SELECT p.name FROM people p WHERE s.actor LIKE 'person:%' AND p.workspace_id = w.workspace_id AND p.id = substr(s.actor, 8)), s.actor),
                                  'stopped_reason', s.reason)
         FROM workspaces w
         LEFT JOIN LATERAL (
           SELECT created_at, actor, reason FROM agent_switch_log l
           WHERE l.workspace_id = w.workspace_id AND l.action = 'stop' ORDER BY created_at DESC, id DESC LIMIT 1
         ) s ON w.agents_stopped
         WHERE w.workspace_id = ${workspaceId}),
        'limits',
        (SELECT json_build_object('max_budget_change_percent', max_budget_change_percent::float8,
                                  'max_discount_percent', max_discount_percent::float8, 'max_send_recipients', max_send_recipients,
                                  'quiet_hours_start', quiet_hours_start, 'quiet_hours_end', quiet_hours_end)
         FROM workspace_limits WHERE workspace_id = ${workspaceId}),
        'agent',
        (SELECT json_build_object('id', a.id, 'name', a.name, 'ceilings', a.ceilings, 'data_access', a.data_access,
                                  'max_unattended_risk', a.max_unattended_risk,
                                  'permissions', COALESCE((SELECT json_agg(json_build_object('tool', p.tool_key, 'action', p.action_key) ORDER BY p.tool_key, p.action_key)
                                                           FROM agent_permissions p WHERE p.workspace_id = a.workspace_id AND p.agent_id = a.id), '[]'))
         FROM agents a WHERE a.workspace_id = ${workspaceId} AND a.id = q.agent_id),
        'tool',
        (SELECT json_build_object(
                  'key', t.key, 'name', t.name, 'action', a.action,
                  'actionKeys', CASE WHEN a.action IS NULL THEN
                    COALESCE((SELECT json_agg(k.key ORDER BY k.created_at, k.key) FROM tool_actions k
                              WHERE k.workspace_id = t.workspace_id AND k.tool_key = t.key), '[]') END)
         FROM tools t
         LEFT JOIN LATERAL (
           SELECT json_build_object('key', a.key, 'name', a.name, 'risk', a.risk, 'dataUsed', a.data_used, 'reversible', a.reversible) AS action
           FROM tool_actions a WHERE a.workspace_id = t.workspace_id AND a.tool_key = t.key AND a.key = q.action
         ) a ON true
         WHERE t.workspace_id = ${workspaceId} AND t.key = q.tool),
        'rules', c.rules) AS view ${readColumns}
      FROM (
        SELECT COALESCE(json_agg(json_build_object('id', r.id, 'structure', r.structure, 'effect', r.effect, 'created_at', r.created_at)
                                 ORDER BY r.created_at, r.id), '[]') AS rules,
               array_agg(r.structure) AS structures
        FROM (SELECT m.rule_id FROM rule_matches m WHERE m.workspace_id = ${workspaceId} AND m.tool = q.tool AND m.action = q.action
              UNION
              SELECT m.rule_id FROM rule_matches m WHERE m.workspace_id = ${workspaceId} AND m.tool = q.tool AND m.action = '') m
        CROSS JOIN LATERAL (SELECT r.id, r.structure, r.effect, r.created_at FROM rules r
                            WHERE r.workspace_id = ${workspaceId} AND r.id = m.rule_id AND r.enabled LIMIT 1) r
      ) c
      ${opts.read ? sql`${namesOf(sql, workspaceId)} ${countsOf(sql, workspaceId)}` : sql``}
    ) v
    CROSS JOIN LATERAL (SELECT v.view::text AS text) vt`
}

/** For each window a count condition of the rules of `c` for this agent names, its count and where it stops (a lateral of viewsOf's). */
function countsOf(sql: Db, workspaceId: string) {
  return sql`
      CROSS JOIN LATERAL (
        SELECT COALESCE(json_object_agg(w.win, n.n ORDER BY w.win), '{}') AS allowed_counts,
               COALESCE(json_object_agg(w.win, w.cap ORDER BY w.win), '{}') AS count_caps
        FROM (SELECT k ->> 'window' AS win, max((k ->> 'value')::numeric)::bigint + 1 AS cap
              FROM unnest(c.structures) s(structure)
              CROSS JOIN LATERAL jsonb_path_query(s.structure, 'lax $.when[*]') k
              WHERE jsonb_typeof(k) = 'object' AND k ->> 'count' = 'allowed' AND k ->> 'window' ~ '^[1-9][0-9]{0,3}[mhd]$'
                AND jsonb_typeof(k -> 'value') = 'number'
                -- Only rules for this agent: a rule naming other agents counts nothing for it.
                AND (s.structure -> 'agents' IS NULL OR s.structure -> 'agents' @> to_jsonb(q.agent_id))
              GROUP BY 1) w
        CROSS JOIN LATERAL (SELECT ${allowedCount(sql, workspaceId, sql`q`, sql`w.win`, sql`w.cap`)} AS n) n
      ) counts`
}

/**
 * How often the agent of `ask` (a row with agent_id, tool and action) was already allowed its tool
 * action within the window `win` (30m, 24h, 7d), up to `cap`: the read (countsOf) and the check at
 * recording count the same way.
 */
function allowedCount(sql: Db, workspaceId: string, ask: Fragment, win: Fragment, cap: Fragment) {
  return sql`(
    SELECT count(*)::int FROM (
      SELECT 1 FROM agent_requests r
      WHERE r.workspace_id = ${workspaceId} AND r.agent_id = ${ask}.agent_id AND r.tool = ${ask}.tool AND r.action = ${ask}.action AND r.decision = 'allowed'
        AND r.created_at > now() - (left(${win}, -1) || CASE right(${win}, 1) WHEN 'm' THEN ' minutes' WHEN 'h' THEN ' hours' ELSE ' days' END)::interval
      LIMIT ${cap}) x)`
}

/** The names of the tools, actions and agents the rules of `c` name (for their sentences): two laterals of viewsOf's. */
function namesOf(sql: Db, workspaceId: string) {
  return sql`
      CROSS JOIN LATERAL (
        SELECT COALESCE(json_object_agg(n.key, n.name), '{}') AS tool_names
        FROM (SELECT DISTINCT m ->> 'tool' AS tool, COALESCE(m ->> 'action', '') AS action FROM unnest(c.structures) s(structure)
              CROSS JOIN LATERAL jsonb_path_query(s.structure, 'lax $.match[*]') m) k
        CROSS JOIN LATERAL (
          (SELECT t.key, t.name FROM tools t WHERE t.workspace_id = ${workspaceId} AND t.key = k.tool AND k.action = '' LIMIT 1)
          UNION ALL
          (SELECT k.tool || '.' || a.key, a.name FROM tool_actions a
           WHERE a.workspace_id = ${workspaceId} AND a.tool_key = k.tool AND a.key = k.action AND k.action <> '' LIMIT 1)
        ) n
      ) names
      CROSS JOIN LATERAL (
        SELECT COALESCE(json_object_agg(a.id, a.name ORDER BY a.id), '{}') AS agent_names
        FROM (SELECT DISTINCT g #>> '{}' AS id FROM unnest(c.structures) s(structure)
              CROSS JOIN LATERAL jsonb_path_query(s.structure, 'lax $.agents[*]') g) k
        CROSS JOIN LATERAL (SELECT a.id, a.name FROM agents a WHERE a.workspace_id = ${workspaceId} AND a.id = k.id LIMIT 1) a
      ) agent_names`
}

/** What one ask is judged against (see viewsOf), read in one statement; undefined when the workspace does not exist. */
export async function selectGatewayView(sql: Db, workspaceId: string, ask: GatewayAsk): Promise<ReadView | undefined> {
  const q = sql`SELECT ${ask.agentId}::text AS agent_id, ${ask.tool}::text AS tool, ${ask.action}::text AS action, 1 AS n`
  const [row] = await sql<
    {
      view: ViewJson; tool_names: Record<string, string>; agent_names: Record<string, string>; allowed_counts: Record<string, number>; count_caps: Record<string, number>
      digest: string; size: number; names_size: number
    }[]
  >`${viewsOf(sql, workspaceId, q, { read: true })}`
  const gate = row?.view.gate
  if (!row || !gate) return undefined
  const { view: v, digest } = row
  const view: GatewayView = {
    gate: { ...gate, stopped_at: date(gate.stopped_at) },
    agent: v.agent,
    tool: v.tool,
    limits: v.limits,
    rules: v.rules.map((r) => ({ ...r, created_at: new Date(r.created_at) })),
    toolNames: row.tool_names,
    agentNames: row.agent_names,
    allowedCounts: row.allowed_counts,
    countCaps: row.count_caps,
  }
  return { view, digest, size: row.size + row.names_size }
}

/**
 * A decision to record: the request, and its events (after any the caller adds, e.g.
 * approval.requested); `viewDigest`, when it was judged against a view read earlier (ReadView),
 * so that it is recorded only if the database still holds that view.
 */
export type DecisionToRecord = RequestInsert & {
  events: EventAppend[]
  viewDigest: string | null
  /** The counts the decision read (Verdict.countsRead) as its view had them, with where each stopped: checked with the view's digest. */
  countsUsed?: Record<string, { n: number; cap: number }> | null
}

/**
 * What recording came to: all recorded; or none, when the allowance has not room for them all
 * (`usedBefore`, `limit`) or when a view one of them was judged against no longer holds (`stale`).
 */
export type Recorded =
  | { recorded: true }
  | { recorded: false; stale: false; usedBefore: number; limit: number }
  | { recorded: false; stale: true }

/**
 * Records decisions of one workspace and one month in one statement: as many more of the month's
 * agentRequests allowance (only if they all stay within the plan's figure, or the workspace's
 * own), the requests, their agents' last act, and their events (in the order given) with their
 * webhook deliveries. When the allowance has not room for all of them, nothing is written and the
 * answer says how much of it is used. A decision given with a `viewDigest` is checked in the same
 * statement against what the database holds now (viewsOf, the SQL of the read itself): when one no
 * longer holds, nothing is written and the answer says stale. Atomic by itself: it needs no
 * transaction around it.
 *
 * The two rows every decision of the workspace locks (the allowance counter and the event
 * sequence) are locked once for all of them: DecisionBatch (agent-gateway-batch.ts) records the
 * decisions that arrive together in one such statement, so they take turns on those rows as a
 * batch and not one by one.
 */
export async function recordDecisions(tx: Db, workspaceId: string, periodStart: string, rs: DecisionToRecord[]): Promise<Recorded> {
  const n = rs.length
  const { ctes } = eventCtes(tx, workspaceId, rs.flatMap((r) => r.events), { when: tx`AND EXISTS (SELECT 1 FROM usage)` })
  const agentIds = [...new Set(rs.map((r) => r.agentId))].sort()
  const items = rs.map((r, i) => ({
    n: i + 1, view_digest: r.viewDigest, counts_used: r.viewDigest && r.countsUsed ? r.countsUsed : null, id: r.id, agent_id: r.agentId, tool: r.tool, action: r.action, resource: r.resource, summary: r.summary, facts: r.facts, judged_facts: r.judgedFacts ?? null,
    params_digest: r.paramsDigest, decision: r.decision, reason: r.reason, checks: r.checks, rules: r.rules,
    rules_version: r.rulesVersion, approval_id: r.approvalId, expires_at: r.expiresAt, created_at: r.createdAt,
  }))
  const checked = tx`SELECT i.n, i.agent_id, i.tool, i.action FROM item i WHERE i.view_digest IS NOT NULL`
  const [row] = await tx<{ fresh: boolean; used: number | null; used_before: number | null; lim: number }[]>`
    WITH item AS (
      SELECT * FROM jsonb_to_recordset(${tx.json(items as never)}::jsonb) AS i(
        n int, view_digest text, counts_used jsonb, id text, agent_id text, tool text, action text, resource text, summary text, facts jsonb, judged_facts jsonb, params_digest text, decision text,
        reason text, checks jsonb, rules jsonb, rules_version int, approval_id text, expires_at timestamptz, created_at timestamptz)
    ), stale AS (
      (SELECT 1 FROM (${viewsOf(tx, workspaceId, checked, { read: false })}) v JOIN item i ON i.n = v.n WHERE v.digest IS DISTINCT FROM i.view_digest LIMIT 1)
      UNION ALL
      -- A count the decision read that is no longer what it read (a request allowed since).
      (SELECT 1 FROM item i CROSS JOIN LATERAL jsonb_each(i.counts_used) u(win, v)
       WHERE ${allowedCount(tx, workspaceId, tx`i`, tx`u.win`, tx`(u.v ->> 'cap')::int`)} <> (u.v ->> 'n')::int LIMIT 1)
    ), lim AS (
      SELECT COALESCE((SELECT a.amount FROM allowances a WHERE a.workspace_id = w.workspace_id AND a.name = 'agentRequests'),
                      (p.allowances ->> 'agentRequests')::bigint, 0) AS amount
      FROM workspaces w JOIN plans p ON p.plan = w.plan WHERE w.workspace_id = ${workspaceId}
    ), usage AS (
      INSERT INTO usage_counters AS u (workspace_id, name, period_start, used)
      SELECT ${workspaceId}, 'agentRequests', ${periodStart}, ${n} FROM lim WHERE lim.amount >= ${n} AND NOT EXISTS (SELECT 1 FROM stale)
      ON CONFLICT (workspace_id, name, period_start) DO UPDATE SET used = u.used + ${n}
      WHERE u.used + ${n} <= (SELECT amount FROM lim) AND NOT EXISTS (SELECT 1 FROM stale)
      RETURNING used
    ), request AS (
      INSERT INTO agent_requests (workspace_id, id, agent_id, tool, action, resource, summary, facts, judged_facts, params_digest, decision,
                                  reason, checks, rules, rules_version, approval_id, expires_at, created_at)
      SELECT ${workspaceId}, i.id, i.agent_id, i.tool, i.action, i.resource, i.summary, i.facts, i.judged_facts, i.params_digest, i.decision,
             i.reason, i.checks, i.rules, i.rules_version, i.approval_id, i.expires_at, i.created_at
      FROM item i WHERE EXISTS (SELECT 1 FROM usage)
      RETURNING 1
    ), touched AS (
      -- Each agent by its key (a join with the items let the planner scan agents); GREATEST skips a NULL.
      UPDATE agents a SET last_acted_at = (SELECT GREATEST(a.last_acted_at, max(i.created_at)) FROM item i WHERE i.agent_id = a.id)
      WHERE a.workspace_id = ${workspaceId} AND a.id = ANY(${agentIds}::text[]) AND EXISTS (SELECT 1 FROM usage)
      RETURNING 1
    ), ${ctes}
    SELECT NOT EXISTS (SELECT 1 FROM stale) AS fresh,
           (SELECT used FROM usage) AS used,
           (SELECT used FROM usage_counters WHERE workspace_id = ${workspaceId} AND name = 'agentRequests' AND period_start = ${periodStart}) AS used_before,
           (SELECT amount FROM lim) AS lim,
           ${eventsNotified(tx)} AS notified`
  if (!row!.fresh) return { recorded: false, stale: true }
  return row!.used === null ? { recorded: false, stale: false, usedBefore: Number(row!.used_before ?? 0), limit: Number(row!.lim) } : { recorded: true }
}

/** Whether every one of the agent requests `ids` of the workspace is in the database (decisions recorded and not lost). */
export async function requestsExist(sql: Db, workspaceId: string, ids: string[]): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_requests WHERE workspace_id = ${workspaceId} AND id = ANY(${ids})`
  return row!.n === ids.length
}
