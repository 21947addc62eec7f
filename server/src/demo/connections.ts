import type { ConnectionKind } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { isoOrNull } from '../core/time.ts'
import { type ConnectionInsert, insertConnections } from '../store/connections.ts'
import { type DemoContext, HOUR, MINUTE } from './context.ts'

type DemoConnections = { connections: ConnectionInsert[]; googleFailingSince: Date }

/**
 * The store, email platform, ad accounts and Instagram: all delivering but Google Ads, failing
 * since a day ago; Instagram failed once for three hours, five weeks ago.
 */
export async function seedConnections(ctx: DemoContext): Promise<DemoConnections> {
  const { r, ws, agoJitter, ago, events } = ctx
  const now = ctx.now.getTime()
  const googleFailingSince = new Date(now - 26 * HOUR - 17 * MINUTE)
  const connectionSpecs: { kind: ConnectionKind; provider: string; name: string; created: number }[] = [
    { kind: 'store', provider: 'shopify', name: 'Northwind Coffee (Shopify)', created: 182 },
    { kind: 'email_platform', provider: 'klaviyo', name: 'Klaviyo – Northwind', created: 181 },
    { kind: 'ad_account', provider: 'meta_ads', name: 'Meta Ads – Northwind US', created: 179 },
    { kind: 'ad_account', provider: 'google_ads', name: 'Google Ads – Northwind EU', created: 121 },
    { kind: 'social_account', provider: 'instagram', name: 'Instagram @northwindcoffee', created: 92 },
  ]
  const connections = connectionSpecs.map((c): ConnectionInsert => {
    const createdAt = agoJitter(c.created)
    const failing = c.provider === 'google_ads'
    return {
      ...ws,
      id: newId('connection', createdAt),
      kind: c.kind,
      provider: c.provider,
      name: c.name,
      delivering: !failing,
      failing_since: failing ? googleFailingSince : null,
      last_delivered_at: failing ? googleFailingSince : new Date(now - r.int(2, 40) * MINUTE),
      created_at: createdAt,
    }
  })
  const connEvent = (c: ConnectionInsert, failingSince: Date | null) => ({
    connection: { id: c.id, kind: c.kind, provider: c.provider, name: c.name, delivering: failingSince === null, failingSince: isoOrNull(failingSince) },
  })
  const insta = connections[4]
  const instaFailed = ago(38.6)
  events.add('connection.failing', instaFailed, connEvent(insta, instaFailed))
  events.add('connection.restored', new Date(instaFailed.getTime() + 3 * HOUR + 12 * MINUTE), connEvent(insta, null))
  events.add('connection.failing', googleFailingSince, connEvent(connections[3], googleFailingSince))
  await insertConnections(ctx.tx, connections)
  return { connections, googleFailingSince }
}
