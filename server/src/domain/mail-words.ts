import { readableFacts } from '../core/figures.ts'
import { BIDI_CONTROLS, LINE_BREAKERS } from '../core/line-breakers.ts'
import type { Action } from '../schemas/actions.ts'
import type { InboxItem } from './inbox.ts'

/**
 * The console's mail in words, plain text: a sign-in link a person asked for, the link of an
 * invitation, and a notice of what waits for them. A mail's links open console pages; none decides
 * anything (link previewers and mail scanners open links): deciding takes a signed-in person's
 * click on the page.
 */

type Written = { subject: string; text: string }
type Recipient = { name: string; workspaceName: string }

const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`

/**
 * Words an API caller or an agent wrote (a summary, a resource, a fact), as a mail shows them: on one
 * line, line breaks and other control characters as spaces, so that they cannot add a line of their
 * own to the mail (a forged "See it and decide: <another site>"); without bidi controls, so that they
 * cannot turn around the service's words after them; a summary in quotes besides, so it reads as the
 * asker's words, not the service's.
 */
const BREAKS = new RegExp(`[${LINE_BREAKERS}]+`, 'g')
const BIDI = new RegExp(`[${BIDI_CONTROLS}]`, 'g')
const oneLine = (text: string) => text.replace(BIDI, '').replace(BREAKS, ' ').replace(/ {2,}/g, ' ').trim()
const quoted = (text: string) => `"${oneLine(text)}"`
const factsLine = (facts: [string, string][]) => facts.map(([k, v]) => `${oneLine(k)} ${oneLine(v)}`).join(', ')

export function signInLinkMail(to: Recipient, link: { url: string; expiresAt: string }): Written {
  return {
    subject: `Your sign-in link for ${to.workspaceName}`,
    text: [
      `Hello ${to.name},`,
      '',
      `Here is your link to sign in to the console of ${to.workspaceName}:`,
      '',
      link.url,
      '',
      `It works once, until ${minute(link.expiresAt)} (15 minutes). Opening it asks you to confirm with one click.`,
      '',
      'If you did not ask for it, ignore this mail: nobody signs in without the link, and it expires by itself.',
    ].join('\n'),
  }
}

/** What each role may do, as the invitation says it. */
const ROLE_WORDS: Record<string, string> = {
  owner: 'an owner: you decide what waits for a person, stop and resume the agents, and manage the policy, tokens, webhooks and people',
  approver: 'an approver: you decide what waits for a person and can stop and resume the agents',
  viewer: 'a viewer: you can read everything in it',
}

/**
 * An invitation: the invitee did not ask for a link, and may read the mail after it has expired, so
 * it says who invited them (a name they know), who they are to the workspace and where to ask for a
 * new link.
 */
export function invitationMail(to: Recipient & { role: string; invitedBy?: string | null }, link: { url: string; expiresAt: string }, consoleUrl: string): Written {
  const who = to.invitedBy ? `${to.invitedBy} added you` : 'You have been added'
  return {
    subject: to.invitedBy ? `${to.invitedBy} invited you to ${to.workspaceName}` : `You are invited to ${to.workspaceName}`,
    text: [
      `Hello ${to.name},`,
      '',
      `${who} to the console of ${to.workspaceName} as ${ROLE_WORDS[to.role] ?? to.role}.`,
      '',
      'Sign in with this link:',
      '',
      link.url,
      '',
      `It works once, until ${minute(link.expiresAt)} (15 minutes). Opening it asks you to confirm with one click.`,
      `If it has expired, ask for a new one with this address at ${consoleUrl.replace(/\/+$/, '')}/signin.`,
      '',
      'If you did not expect this invitation, you can ignore this mail: nobody signs in without the link.',
    ].join('\n'),
  }
}

export type WaitingEntry = Extract<InboxItem, { kind: 'approval' }> | { kind: 'action'; action: Action }

function approvalLines(item: Extract<InboxItem, { kind: 'approval' }>, url: string): string[] {
  const { approval: a, asked } = item
  const facts = asked ? readableFacts(asked.facts) : []
  return [
    quoted(asked?.summary ?? a.summary),
    asked
      ? `   ${asked.agentName} (an agent) asks to ${asked.tool}.${asked.action}${asked.resource ? ` on ${oneLine(asked.resource)}` : ''}.`
      : `   Requested by ${oneLine(a.requestedBy)}.`,
    ...(facts.length ? [`   Facts: ${factsLine(facts)}.`] : []),
    ...(asked ? [`   Why it waits: ${asked.reason}`] : []),
    ...(a.expiresAt ? [`   Expires ${minute(a.expiresAt)}.`] : []),
    `   See it and decide: ${url}`,
  ]
}

function actionLines(a: Action, url: string): string[] {
  const { summary, ...figures } = a.plannedEffect
  const effect = readableFacts(figures)
  return [
    quoted(summary),
    `   ${oneLine(a.proposedBy.name)} proposes ${a.kind}.`,
    ...(effect.length ? [`   Planned effect: ${factsLine(effect)}.`] : []),
    `   See it and decide: ${url}`,
  ]
}

/** The notice of what waits for a person: each item with who asked, what, its planned effect and its page. */
export function waitingMail(to: Recipient & { role: string }, entries: WaitingEntry[], opts: { consoleUrl: string; paceMs: number }): Written {
  const consoleUrl = opts.consoleUrl
  const base = consoleUrl.replace(/\/+$/, '')
  const first = entries[0]!
  const one = entries.length === 1
  const subject = one
    ? `Waiting for you: ${quoted(first.kind === 'approval' ? (first.asked?.summary ?? first.approval.summary) : first.action.plannedEffect.summary)}`
    : `${entries.length} things wait for you in ${to.workspaceName}`
  const listed = entries.flatMap((e, n) => {
    const lines = e.kind === 'approval' ? approvalLines(e, `${base}/approvals/${e.approval.id}`) : actionLines(e.action, `${base}/actions/${e.action.id}`)
    return [`${n + 1}. ${lines[0]}`, ...lines.slice(1), '']
  })
  return {
    subject: subject.length > 150 ? `${subject.slice(0, 149)}\u2026` : subject,
    text: [
      `Hello ${to.name},`,
      '',
      `${one ? 'This waits' : 'These wait'} for a person in ${to.workspaceName}:`,
      '',
      ...listed,
      'Opening a link decides nothing: you approve or reject on its page, signed in.',
      `You get this mail as ${to.role === 'owner' ? 'an owner' : 'an approver'} of ${to.workspaceName}; at most one ${paceWords(opts.paceMs)}, and what comes meanwhile is in the next.`,
      `Everything that waits: ${base}/`,
    ].join('\n'),
  }
}

/** The pace of notices in words: "a minute", "every 5 minutes", "every 2 seconds". */
function paceWords(ms: number): string {
  if (ms === 60_000) return 'a minute'
  if (ms % 60_000 === 0) return `every ${ms / 60_000} minutes`
  return `every ${Math.round(ms / 100) / 10} seconds`
}
