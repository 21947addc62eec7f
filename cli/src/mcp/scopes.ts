import { CliError, NoAnswer } from '../errors.ts'
import { baseUrlShown, noAnswerSentence, reasonOfFetch } from '../api/refusal.ts'
import { type Credentials, tokenOf } from '../api/credentials.ts'
import type { DeclaredOperation } from './schema.ts'

/**
 * Which scopes a workspace token holds. The API has no endpoint that says (a token's scopes are
 * shown once, when it is made), so `growth mcp` asks each scope once, at start: one request per
 * scope the document names (ten today), to one operation that needs it, with a query parameter no
 * operation takes. The server checks the credential and the scope before it reads anything, so the
 * answer is 403 `forbidden` without the scope, and 400 `invalid_parameter` with it: nothing is read
 * or written, and no Idempotency-Key is kept. Each probe counts against the token's rate limit and
 * in its call counts like any refused request.
 */

const PROBE_PARAMETER = 'mcp_scope_probe'
const PROBE_TIMEOUT_MS = 15_000

type Probe = { scope: string; status: number; code: string | undefined; message: string | undefined }

async function probe(credentials: Credentials, op: DeclaredOperation): Promise<Probe> {
  const { baseUrl, token } = credentials
  const url = `${baseUrl.replace(/\/+$/, '')}${op.spec.path}?${PROBE_PARAMETER}=1`
  let response: Response
  try {
    response = await fetch(url, {
      method: op.spec.method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    })
  } catch (err) {
    // Said as every command says it (exit 2): which URL, from where, and why no answer came.
    throw new NoAnswer(noAnswerSentence(baseUrlShown(credentials), reasonOfFetch(err, PROBE_TIMEOUT_MS)), false)
  }
  const body = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined
  return { scope: op.scope!, status: response.status, code: body?.error?.code, message: body?.error?.message }
}

/** The scopes the token holds, among those the document's operations need. */
export async function probeScopes(credentials: Credentials, operations: DeclaredOperation[]): Promise<Set<string>> {
  const { baseUrl } = credentials
  const one = new Map<string, DeclaredOperation>()
  for (const op of operations) if (op.scope && !one.has(op.scope)) one.set(op.scope, op)
  const answers = await Promise.all([...one.values()].map((op) => probe(credentials, op)))
  const held = new Set<string>()
  for (const a of answers) {
    if (a.status === 403) continue
    if (a.status === 400 || (a.status >= 200 && a.status < 300)) {
      held.add(a.scope)
      continue
    }
    if (a.status === 401) throw new CliError(`the API at ${baseUrl} refused ${tokenOf(credentials)}: ${a.message ?? 'unauthorized'}`)
    if (a.status === 402) throw new CliError(`the API at ${baseUrl} refused this workspace: ${a.message ?? 'its plan does not include API access'}`)
    if (a.status === 429) throw new CliError(`the API at ${baseUrl} refused to answer: ${a.message ?? 'rate limited'}`)
    throw new CliError(`the API at ${baseUrl} answered ${a.status}${a.code ? ` ${a.code}` : ''} when asked about the scope ${a.scope}${a.message ? `: ${a.message}` : ''}. Is --base-url the API's /api/v1?`)
  }
  return held
}
