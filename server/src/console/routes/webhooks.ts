import { Elysia } from 'elysia'
import { DomainError } from '../../core/errors.ts'
import { createEndpoint, endpointIn, listAttempts, listEndpoints, rotateSecret, sendTestEvent, setEndpointEnabled, updateEndpoint, UrlRefused } from '../../domain/webhooks.ts'
import { webhookPage, webhooksPage } from '../pages/webhooks.ts'
import { answerAt } from '../pages/layout.ts'
import { pageResponse, redirectTo } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import type { ConsoleSession } from '../session-port.ts'

/**
 * The console's webhook pages (/console/webhooks, /console/webhooks/{id}): every role reads them;
 * only an owner adds an endpoint, sends a test, rotates its secret, disables or enables it, on the
 * same domain functions as `growth admin webhook ...`, scoped to the person's workspace and recorded
 * in the audit list with the person. The address is checked as the API checks it.
 */

const ATTEMPTS_SHOWN = 50

export function webhookRoutes({ sql, webhooks: guard }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, signedInPost, problem, showOnce, shownPage } = kit
  const person = (s: ConsoleSession) => ({ kind: 'person' as const, id: s.person.id, name: s.person.name })
  const onlyOwners = (s: ConsoleSession) =>
    problem(403, 'Not allowed', `You are ${s.person.role === 'approver' ? 'an approver' : 'a viewer'} of ${s.workspace.name}: you can read the webhooks, and an owner changes them.`, s)

  /** The endpoint page, with what a form just did (a notice, a secret shown once, or why not). */
  async function endpointPage(session: ConsoleSession, id: string, extra: { notice?: string; rotated?: string; error?: string; edit?: EditRefused } = {}, status = 200): Promise<Response> {
    const endpoint = await endpointIn(sql, session.workspace.id, id)
    const { attempts } = await listAttempts(sql, id, ATTEMPTS_SHOWN, { within: session.workspace.id })
    return pageResponse(webhookPage({ session, endpoint, attempts, ...extra }), status)
  }

  /** An owner's form on one endpoint: refused for other roles; a domain refusal shown on the page. */
  const ownerPost = (fn: (session: ConsoleSession, id: string, fields: URLSearchParams, request: Request) => Promise<Response>) =>
    signedInPost(async ({ request, session, params }, fields) => {
      if (session.person.role !== 'owner') return onlyOwners(session)
      try {
        return await fn(session, params.id!, fields, request)
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'rule') return endpointPage(session, params.id!, { error: error.message }, 400)
        throw error
      }
    })

  return new Elysia()
    .get(
      '/console/shown/webhook',
      shownPage<Created>('webhook', { lost: 'If the signing secret was not copied, rotate it on the endpoint\u2019s page: the new one is shown once too.', back: { href: '/console/webhooks', text: 'Back to the webhooks' } }, async (session, created) => {
        // The URL is read here, not carried: a URL the form allows (up to its 16 KiB) would make the cookie one a browser drops.
        const { endpoints } = await listEndpoints(sql, session.workspace.id)
        const url = endpoints.find((e) => e.id === created.id)?.url ?? created.id
        return pageResponse(webhooksPage({ session, endpoints, created: { ...created, url } }))
      }),
    )
    .get(
      '/console/shown/webhook-secret',
      shownPage<Rotated>('webhook-secret', { lost: 'If the new signing secret was not copied, rotate it again.', back: { href: '/console/webhooks', text: 'Back to the webhooks' } }, (session, r) =>
        endpointPage(session, r.endpointId, { rotated: r.secret, notice: r.notice }),
      ),
    )
    .get('/console/webhooks', signedIn(async ({ session }) => pageResponse(webhooksPage({ session, endpoints: (await listEndpoints(sql, session.workspace.id)).endpoints }))))
    .post('/console/webhooks', signedInPost(async ({ request, session }, fields) => {
      if (session.person.role !== 'owner') return onlyOwners(session)
      const url = fields.get('url')?.trim() ?? ''
      const events = fields.getAll('events')
      let created: Created
      try {
        if (!url) throw new RefusedForm('Give the endpoint its URL.')
        const made = await createEndpoint(sql, { workspaceId: session.workspace.id, url, events: events.join(','), by: person(session) }, guard)
        created = { id: made.id, secret: made.secret }
      } catch (error) {
        // The URL refused is named as the form labels it; the API's sentence names its field, url.
        if (!(error instanceof RefusedForm || (error instanceof DomainError && error.kind === 'rule'))) throw error
        const message = error instanceof UrlRefused ? `The URL ${url} is refused: ${error.reason}.` : error.message
        return pageResponse(webhooksPage({ session, endpoints: (await listEndpoints(sql, session.workspace.id)).endpoints, refused: { message, url, events } }), 400)
      }
      // The secret is on the page this leads to, once: a reload or a later visit never shows it again.
      return showOnce(request, session, 'webhook', created)
    }), { parse: 'none' })
    .get('/console/webhooks/:id', signedIn(async ({ session, params, request }) => endpointPage(session, params.id!, { notice: doneNotice(new URL(request.url).searchParams) })))
    // Each form's answer is a redirect to the endpoint's page saying what was done (in its query:
    // ids and a count, nothing secret), so reloading that page does not send the form again.
    .post('/console/webhooks/:id/test', ownerPost(async (session, id, fields) => {
      const event = fields.get('event') || 'webhook.test'
      const sent = await sendTestEvent(sql, id, event, { within: session.workspace.id })
      return redirectTo(answerAt(`/console/webhooks/${id}?${new URLSearchParams({ done: 'tested', event, eventId: sent.eventId, deliveryId: sent.deliveryId })}`))
    }), { parse: 'none' })
    .post('/console/webhooks/:id/update', ownerPost(async (session, id, fields) => {
      const url = fields.get('url')?.trim() ?? ''
      const events = fields.getAll('events')
      try {
        if (!url) throw new RefusedForm('Give the endpoint its URL.')
        const r = await updateEndpoint(sql, id, { url, events: events.join(',') }, guard, { within: session.workspace.id, by: person(session) })
        return redirectTo(answerAt(`/console/webhooks/${id}?done=${r.changed ? 'updated' : 'unchanged'}`))
      } catch (error) {
        // The form as sent, beside why it was refused, as the add form does; the URL in the form's words.
        if (!(error instanceof RefusedForm || (error instanceof DomainError && error.kind === 'rule'))) throw error
        const message = error instanceof UrlRefused ? `The URL ${url} is refused: ${error.reason}.` : error.message
        return endpointPage(session, id, { edit: { message, url, events } }, 400)
      }
    }), { parse: 'none' })
    .post('/console/webhooks/:id/rotate', ownerPost(async (session, id, fields, request) => {
      const raw = fields.get('overlap') ?? ''
      if (!/^\d{1,7}$/.test(raw)) return endpointPage(session, id, { error: `The overlap must be a number of seconds (got ${JSON.stringify(raw.slice(0, 40))}); nothing was changed.` }, 400)
      const { secret } = await rotateSecret(sql, id, Number(raw) * 1000, { within: session.workspace.id, by: person(session) })
      const notice = Number(raw) ? `The old secret keeps signing beside the new one for ${overlapWords(Number(raw))}.` : 'The old secret stopped signing now.'
      return showOnce(request, session, 'webhook-secret', { endpointId: id, secret, notice } satisfies Rotated)
    }), { parse: 'none' })
    .post('/console/webhooks/:id/disable', ownerPost(async (session, id) => {
      await setEndpointEnabled(sql, id, false, person(session), { within: session.workspace.id })
      return redirectTo(answerAt(`/console/webhooks/${id}?done=disabled`))
    }), { parse: 'none' })
    .post('/console/webhooks/:id/enable', ownerPost(async (session, id) => {
      const r = await setEndpointEnabled(sql, id, true, person(session), { within: session.workspace.id })
      const requeued = r.status === 'enabled' ? r.requeued : 0
      return redirectTo(answerAt(`/console/webhooks/${id}?done=enabled&requeued=${requeued}`))
    }), { parse: 'none' })
}

/** What a form just did, from the query of the page it led to; nothing for a query it did not write. */
function doneNotice(q: URLSearchParams): string | undefined {
  const id = (v: string | null, prefix: string) => v !== null && new RegExp(`^${prefix}_[0-9a-z]{10,40}$`).test(v)
  switch (q.get('done')) {
    case 'tested': {
      const event = q.get('event') ?? ''
      if (!/^[a-z_]+(\.[a-z_]+)*$/.test(event) || event.length > 60 || !id(q.get('eventId'), 'evt') || !id(q.get('deliveryId'), 'dlv')) return undefined
      return `Queued ${event} event ${q.get('eventId')} as delivery ${q.get('deliveryId')}; its attempt shows below once it is made.`
    }
    case 'enabled': {
      const raw = q.get('requeued') ?? ''
      if (!/^\d{1,9}$/.test(raw)) return undefined
      const requeued = Number(raw)
      return requeued
        ? `Enabled. ${requeued.toLocaleString('en-US')} ${requeued === 1 ? 'delivery that failed' : 'deliveries that failed'} in the last 72 hours ${requeued === 1 ? 'goes' : 'go'} again, oldest first.`
        : 'Enabled. Nothing failed to it in the last 72 hours; what waited goes now.'
    }
    case 'disabled':
      return 'Disabled: nothing is sent to it until it is enabled again.'
    case 'updated':
      return 'Saved. Its signing secret is the same; a delivery waiting for its next attempt goes to this URL.'
    case 'unchanged':
      return 'It already had this URL and these event types: nothing changed.'
    default:
      return undefined
  }
}

/** An endpoint just added, with its signing secret: shown once, on GET /console/shown/webhook after the POST. */
type Created = { id: string; secret: string }
/** An endpoint's new signing secret: shown once, on GET /console/shown/webhook-secret after the POST. */
type Rotated = { endpointId: string; secret: string; notice: string }

/** The URL and event types form as it was sent, and why it was refused. */
type EditRefused = { message: string; url: string; events: string[] }

/** A form's own refusal, shown on the page like the domain's. */
class RefusedForm extends Error {}

function overlapWords(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} ${seconds === 3600 ? 'hour' : 'hours'}`
  return `${seconds.toLocaleString('en-US')} seconds`
}
