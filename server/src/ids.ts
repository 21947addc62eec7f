import { monotonicFactory, ulid } from 'ulid'

/**
 * Opaque, prefixed, time-sortable ids (ULIDs): `msn_01JD3...`. Never database serials.
 * The prefixes are those of ../shared/CONTRACT.md.
 */
export const ID_PREFIXES = {
  workspace: 'ws',
  mission: 'msn',
  decision: 'dec',
  signal: 'sig',
  opportunity: 'opp',
  experiment: 'exp',
  approval: 'apr',
  action: 'act',
  contact: 'ctc',
  customer: 'cus',
  connection: 'conn',
  event: 'evt',
  agent: 'agt',
  rule: 'rule',
  authorization: 'auth',
  result: 'res',
  list: 'lst',
  workflow: 'wf',
  run: 'run',
  abTest: 'abt',
  emailSend: 'snd',
  campaign: 'cmp',
  webhookEndpoint: 'whe',
  delivery: 'dlv',
  // not named by the contract, but kept in the same style
  credential: 'cred',
  request: 'req',
  automation: 'aut',
  finding: 'fnd',
  outcome: 'out',
  segment: 'seg',
  order: 'ord',
  switch: 'sw',
} as const

export type IdKind = keyof typeof ID_PREFIXES

const nextUlid = monotonicFactory()

/** A new id of the given kind, stamped with `at` (default now) so ids sort by creation time. */
export function newId(kind: IdKind, at?: Date | number): string {
  // The monotonic factory keeps ids made within one millisecond in order; a back-dated id (demo
  // history) takes its own time, which the monotonic factory would clamp to the latest one.
  const body = at === undefined ? nextUlid() : ulid(typeof at === 'number' ? at : at.getTime())
  return `${ID_PREFIXES[kind]}_${body.toLowerCase()}`
}
