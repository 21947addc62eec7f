/**
 * A credential or secret as it may be shown after the once it is given in full (a later start's
 * banner, growth listen, growth login): its kind (`svc_live_`, `svc_agt_`, `whsec_`, ...) and its last
 * four characters, enough to tell two apart and never enough to use one.
 */
export function lastFour(secret: string): string {
  const kind = /^(?:svc_[a-z]+_|[a-z]+_)/.exec(secret)?.[0] ?? ''
  return `${kind}…${secret.slice(-4)}`
}
