/**
 * A credential or secret as it may be shown after the once it is given in full (a later start's
 * banner, growth listen, growth login): its kind (`svc_live_`, `svc_agt_`, `whsec_`, ...) and its last
 * four characters, enough to tell two apart and never enough to use one.
 */
export function lastFour(secret: string): string {
  const kind = /^(?:svc_[a-z]+_|[a-z]+_)/.exec(secret)?.[0] ?? ''
  return `${kind}…${secret.slice(-4)}`
}

/**
 * The credentials and secrets this service issues, wherever they stand in a text: API tokens and
 * agent credentials, webhook signing secrets, console sign-in links and sessions.
 */
const ISSUED_SECRET = /(?:svc_(?:live|test|agt)_|whsec_|gsl_|gss_)[A-Za-z0-9_-]{8,}/g

/**
 * A text kept for later reading (a refused call's message, its path, its idempotency key, in the
 * request log) with each secret of ours in it shown as lastFour shows one: a caller who pasted a
 * token in the wrong place reads what it was, and the log holds no credential.
 */
export const withoutSecrets = (text: string) => text.replace(ISSUED_SECRET, lastFour)
