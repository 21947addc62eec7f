import { Elysia } from 'elysia'
import { accountPage } from '../pages/account.ts'
import { answerAt } from '../pages/layout.ts'
import { jsonResponse, pageResponse, passkeyRefusedJson, redirectTo } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { type ConsoleSession, isPasskeyRefused } from '../session-port.ts'

const DONE: Record<string, string> = { added: 'Passkey added: next time, sign in with it from the sign-in page.', removed: 'Passkey removed: it signs no one in any more.' }

/** The person's own page: their passkeys, added and removed with the session's CSRF token. */
export function accountRoutes({ sessions }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, signedInPost, notFound } = kit
  const { passkeys } = sessions
  const noPasskeys = () => {
    if (!passkeys) return jsonResponse({ message: 'This server has no passkeys.' }, 404)
    const why = passkeys.unavailable()
    return why ? jsonResponse({ message: why }, 409) : null
  }
  const account = async (session: ConsoleSession, extra: { notice?: string; error?: string } = {}) =>
    accountPage({
      session,
      now: new Date(),
      passkeys: passkeys ? await passkeys.list(session) : [],
      unavailable: passkeys ? passkeys.unavailable() : 'Passkeys are not set up on this server.',
      ...extra,
    })

  return new Elysia()
    .get('/console/account', signedIn(async ({ request, session }) => {
      const done = new URL(request.url).searchParams.get('done')
      return pageResponse(await account(session, { notice: done && Object.hasOwn(DONE, done) ? DONE[done] : undefined }))
    }))
    .post('/console/account/passkeys/options', signedInPost(async ({ session, sessionToken }) => {
      const no = noPasskeys()
      if (no) return no
      const options = await passkeys!.registrationOptions(session, sessionToken)
      if (isPasskeyRefused(options)) return passkeyRefusedJson(options)
      return jsonResponse({ options })
    }), { parse: 'none' })
    .post('/console/account/passkeys', signedInPost(async ({ session, sessionToken }, fields) => {
      if (!passkeys || passkeys.unavailable()) return pageResponse(await account(session), 409)
      const added = await passkeys.register(session, sessionToken, { response: fields.get('response'), name: fields.get('name') })
      if ('refused' in added) return pageResponse(await account(session, { error: `The passkey was not added. ${added.refused}` }), added.status)
      return redirectTo(answerAt('/console/account?done=added'))
    }), { parse: 'none' })
    .post('/console/account/passkeys/:id/remove', signedInPost(async ({ session, params }) => {
      if (!passkeys || !(await passkeys.remove(session, params.id!))) return notFound(session)
      return redirectTo(answerAt('/console/account?done=removed'))
    }), { parse: 'none' })
}
