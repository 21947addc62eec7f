import { Elysia } from 'elysia'
import { RuleError } from '../../core/errors.ts'
import { addPerson, changeRole, listPeople, removePerson, stillInvited } from '../../domain/people.ts'
import { signInLink } from '../../domain/sign-in.ts'
import { mailInviteLink } from '../../domain/sign-in-mail.ts'
import { type PersonShown, personInvitedPage, peoplePage } from '../pages/people.ts'
import { answerAt } from '../pages/layout.ts'
import { pageResponse, redirectTo } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import { personActor, type ConsoleSession } from '../session-port.ts'

const DONE: Record<string, string> = {
  role: 'Role changed: their next request obeys it.',
  'own-role': 'Your role changed: the console now shows what your new role may do.',
  removed: 'Person removed: their sessions ended at once, and their unused sign-in links no longer work.',
}
const ROLE_NAMES: Record<string, string> = { owner: 'an owner', approver: 'an approver', viewer: 'a viewer' }

/** What a form just did, naming the person when the redirect says who (`person`) and they are listed. */
function doneNotice(q: URLSearchParams, people: { id: string; name: string; role: string }[]): string | undefined {
  const done = q.get('done')
  if (!done || !Object.hasOwn(DONE, done)) return undefined
  const person = done === 'role' ? people.find((p) => p.id === q.get('person')) : undefined
  return person ? `${person.name} is now ${ROLE_NAMES[person.role] ?? person.role}: their next request obeys it.` : DONE[done]
}
/**
 * An invitation refused, in the page's words: an address taken names the person who has it as the
 * list below shows them (the domain's sentence, for the CLI, names them and the workspace by id).
 */
function inviteRefused(error: RuleError, email: string, people: { id: string; name: string; email: string; role: string }[], you: string): string {
  const taken = error.rule === 'email.unique' ? people.find((p) => p.email === email.trim().toLowerCase()) : undefined
  if (!taken) return error.message
  if (taken.id === you) return `${taken.email} is your own address here: an address names one person.`
  return `${taken.email} is already the address of ${taken.name}, ${ROLE_NAMES[taken.role] ?? taken.role} here: an address names one person, so change their role below instead.`
}
const ownersOnly = (session: ConsoleSession) =>
  `You are ${session.person.role === 'approver' ? 'an approver' : 'a viewer'} of ${session.workspace.name}: you can read the list of people, and an owner invites them, changes their roles and removes them.`

/**
 * The workspace's people: every signed-in person reads the list (CONTRACT: approvers and viewers
 * read); only an owner invites, changes a role and removes, through the same domain functions as
 * growth admin person add|link|remove, recorded in the audit list with the person. An invitation's
 * sign-in link is mailed when this server sends mail (queued, made when it goes), else shown once
 * on the page the POST leads to (shown.ts).
 */
export function peopleRoutes({ sql, consoleUrl, mail }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, rolePost, showOnce, shownPage } = kit
  const list = async (session: ConsoleSession) => (await listPeople(sql, session.workspace.id, { added: true })).people
  /**
   * An invitation's sign-in link (`again`: a new one for a person not signed in yet): mailed when this
   * server sends mail (made as it goes), else made now and shown once on the page the POST leads to.
   */
  const sendInvitation = async (request: Request, session: ConsoleSession, person: { id: string; name: string; email: string; role: string }, again: boolean) => {
    const shown = { person: shownPerson(person), ...(again ? { again } : {}) }
    if (mail) {
      await mailInviteLink(sql, { workspaceId: session.workspace.id, id: person.id }, session.person.id)
      mail.wake()
      return showOnce(request, session, 'person', { ...shown, link: null } satisfies PersonShown)
    }
    const link = await signInLink(sql, { personId: person.id, consoleUrl: consoleUrl(), by: personActor(session), beforeFirstSignIn: again })
    return showOnce(request, session, 'person', { ...shown, link: { url: link.url, expiresAt: link.expiresAt } } satisfies PersonShown)
  }
  return new Elysia()
    .get(
      '/console/shown/person',
      shownPage<PersonShown>('person', { lost: 'If the sign-in link was lost, make another on the People page (until they first sign in).', back: { href: '/console/people', text: 'Back to the people' } }, async (session, shown) =>
        pageResponse(personInvitedPage({ session, ...shown })),
      ),
    )
    .get('/console/people', signedIn(async ({ request, session }) => {
      const people = await list(session)
      return pageResponse(peoplePage({ session, people, mailed: !!mail, notice: doneNotice(new URL(request.url).searchParams, people) }))
    }))
    .post('/console/people', rolePost(['owner'], ownersOnly, async ({ request, session }, fields) => {
      const typed = { email: fields.get('email') ?? '', name: fields.get('name') ?? '', role: fields.get('role') ?? '' }
      let person
      try {
        person = await addPerson(sql, { workspaceId: session.workspace.id, ...typed, by: personActor(session) })
      } catch (error) {
        if (error instanceof RuleError) {
          const people = await list(session)
          return pageResponse(peoplePage({ session, people, mailed: !!mail, error: inviteRefused(error, typed.email, people, session.person.id), typed }), 400)
        }
        throw error
      }
      return sendInvitation(request, session, person, false)
    }), { parse: 'none' })
    // A new link to the invitation of a person who has not signed in yet (domain stillInvited says why only then).
    .post('/console/people/:id/link', rolePost(['owner'], ownersOnly, async ({ request, session, params }) => {
      return sendInvitation(request, session, await stillInvited(sql, session.workspace.id, params.id!), true)
    }), { parse: 'none' })
    .post('/console/people/:id/role', rolePost(['owner'], ownersOnly, async ({ session, params }, fields) => {
      await changeRole(sql, { workspaceId: session.workspace.id, id: params.id!, role: fields.get('role') ?? '', by: personActor(session) })
      return redirectTo(answerAt(params.id === session.person.id ? '/console/people?done=own-role' : `/console/people?${new URLSearchParams({ done: 'role', person: params.id! })}`))
    }), { parse: 'none' })
    .post('/console/people/:id/remove', rolePost(['owner'], ownersOnly, async ({ session, params }) => {
      await removePerson(sql, params.id!, { workspaceId: session.workspace.id, by: personActor(session) })
      return redirectTo(answerAt('/console/people?done=removed'))
    }), { parse: 'none' })
}

/** What the invitation's page names of the person. */
const shownPerson = (p: { name: string; email: string; role: string }) => ({ name: p.name, email: p.email, role: p.role })
