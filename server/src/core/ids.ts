import { monotonicFactory, ulid } from 'ulid'

/**
 * Opaque, prefixed, time-sortable ids (ULIDs): `msn_01JD3...`. Never database serials.
 * The prefixes are those of the contract. Callers treat ids as opaque: the API checks only an id's
 * type prefix (see `idPattern`), so an id with the right prefix that names nothing is 404, not 400.
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
  webhookSecret: 'whs',
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

/**
 * Random bytes for the ids' random part, drawn from the system's CSPRNG 4 KiB at a time: the ulid
 * package's default asks it for one byte per character (16 calls and 16 buffers per id) and looks
 * the generator up again on every `ulid()` call, which showed in the request pipeline's profile.
 */
const pool = new Uint8Array(4096)
let drawn = pool.length
function prng(): number {
  if (drawn === pool.length) {
    crypto.getRandomValues(pool)
    drawn = 0
  }
  return pool[drawn++]! / 256
}

const nextUlid = monotonicFactory(prng)

/** A new id of the given kind, stamped with `at` (default now) so ids sort by creation time. */
export function newId(kind: IdKind, at?: Date | number): string {
  // The monotonic factory keeps ids made within one millisecond in order; a back-dated id (demo
  // history) takes its own time, which the monotonic factory would clamp to the latest one.
  const body = at === undefined ? nextUlid() : ulid(typeof at === 'number' ? at : at.getTime(), prng)
  return `${ID_PREFIXES[kind]}_${body.toLowerCase()}`
}

/** The most characters an id may have after its prefix: far above ours (26), far below any harm. */
export const MAX_ID_BODY = 100

/**
 * What the API checks of an id a caller sends: its type prefix, then 1 to MAX_ID_BODY characters of
 * letters, digits, `_` and `-`. Nothing else of its shape: `auth_doesnotexist` is a well-formed id
 * that names nothing (404).
 */
export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_[A-Za-z0-9_-]{1,${MAX_ID_BODY}}$`)
}
