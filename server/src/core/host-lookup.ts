import { lookup } from 'node:dns/promises'

/**
 * Resolves when `host` names an address; otherwise rejects with code `HOST_UNRESOLVED` and the
 * resolver's message, so that the caller words it as its own setting's fault (HOST, METRICS_HOST):
 * a listen on a name that does not resolve names neither the setting nor the cause.
 */
export async function hostResolves(host: string): Promise<void> {
  try {
    await lookup(host)
  } catch (err) {
    throw Object.assign(new Error(String((err as Error)?.message ?? err)), { code: 'HOST_UNRESOLVED' })
  }
}
