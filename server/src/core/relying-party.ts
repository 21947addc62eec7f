import { isIP } from 'node:net'

/**
 * Who passkeys are registered with (WebAuthn's relying party): the host name of the console's
 * public address (CONSOLE_URL) and that address's origin. Browsers refuse an IP address as a
 * relying party's id, so a console served at one has no passkeys: the operator sets CONSOLE_URL to a
 * host name (`http://localhost:PORT/console` on one machine, else the https name people open).
 */
export type RelyingParty = { id: string; origin: string; name: string } | { unavailable: string }

export function relyingPartyOf(consoleUrl: string): RelyingParty {
  const url = new URL(consoleUrl)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) {
    return {
      unavailable: `Passkeys are off on this server: the console's address (${url.origin}) is an IP address, and browsers allow passkeys only for a host name. The operator sets CONSOLE_URL to a name, such as http://localhost:${url.port || '3000'}/console on this machine or https://growth.example.com/console.`,
    }
  }
  return { id: host, origin: url.origin, name: 'Growth console' }
}
