import { type JsonSchema, resolve } from '../catalogue.ts'
import { ApiRefusal } from '../errors.ts'
import { oneLine } from '../output.ts'

/**
 * `--require-allowed`, on every command whose answer is a decision (its data has `mayProceed`: the
 * agent gateway's authorize). A decision is an answered call, so without the flag the command exits
 * 0 whatever it is; with it, a decision other than `allowed` is a refusal (exit 1): one line on
 * stderr naming the decision, the reason, the checks that did not pass and the approval that waits
 * for a person, so that `growth agent authorize ... --require-allowed && act` acts only on a yes.
 * stdout is the answer as without the flag.
 */

export const REQUIRE_ALLOWED_HELP =
  'exit 1 unless the decision is allowed (denied or requires_approval: the decision, reason, checks not passed and approval on one stderr line; stdout as without it)'

/** After the command's --help: the trap the flag is for. */
export const DECISION_EXIT_HELP = (command: string) =>
  `A decision is an answer: without --require-allowed, growth ${command} exits 0 whether it is allowed, denied or requires_approval, so \`growth ${command} ... && act\` would act on a denial. To act only on allowed: \`growth ${command} ... --require-allowed && act\`.`

/** Whether an operation's success data is a decision: it says (in every shape it has) whether the caller may proceed. */
export function answersDecision(response: JsonSchema): boolean {
  const top = resolve(response)
  const shapes = (top.oneOf ?? top.anyOf ?? [top]).map((s) => resolve(s))
  return shapes.every((s) => s.properties?.mayProceed !== undefined)
}

type Decision = {
  decision?: unknown
  mayProceed?: unknown
  reason?: unknown
  checks?: { name: string; passed: boolean }[]
  approvalId?: unknown
  authorizationId?: unknown
}

/** The refusal a decision other than `allowed` is under --require-allowed; undefined for a yes. */
export function notAllowed(data: unknown, requestId: string | undefined, json: boolean): ApiRefusal | undefined {
  const d = (data ?? {}) as Decision
  if (d.mayProceed === true) return undefined
  const failing = (d.checks ?? []).filter((c) => !c.passed).map((c) => c.name)
  const parts = [
    typeof d.reason === 'string' ? d.reason : 'The gateway did not allow the request.',
    failing.length ? `Checks not passed: ${failing.join(', ')}.` : '',
    typeof d.approvalId === 'string' ? `Approval ${d.approvalId} waits for a person; once approved, the same request is allowed once.` : '',
    typeof d.authorizationId === 'string' ? `Authorization ${d.authorizationId}.` : '',
  ]
  const message = oneLine(parts.filter(Boolean).join(' '))
  const code = typeof d.decision === 'string' ? d.decision : 'not_allowed'
  // For people: `error: denied (--require-allowed): ...`, the flag that made a decision a refusal.
  return new ApiRefusal({ code, message, requestId: requestId ?? null }, undefined, json, `${code} (--require-allowed)`)
}
