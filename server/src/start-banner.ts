import { createLogger, type LogFormat } from './core/log.ts'
import { lastFour } from './core/secret-hint.ts'
import type { DemoWorkspace } from './demo/index.ts'

/** What `npm start` announces once it serves: where, on what, and the demo workspace when it has one. */
export type StartBanner = {
  api: string
  database: string
  reference: string
  metrics?: string
  traces?: string
  /** Said only when off (REQUEST_LOG=off): in a fleet, the calls of this instance are then missing from the workspace's log. */
  requestLog?: string
  demo?: {
    workspace: DemoWorkspace
    /** The file (0600) with the demo's credentials and fixture ids as shell variables. */
    envFile: string
    /** Whether this start seeded it: its credentials are printed in full then only. */
    seededNow: boolean
    owner?: { id: string; name: string; email: string; url: string; expiresAt: string; passkeysNote?: string }
  }
}

/**
 * Prints the banner last thing at start. On a terminal (LOG_FORMAT=pretty) it is text for a person:
 * the demo's credentials in full on its first start, their last four after. Otherwise stdout is the
 * log stream (CONTRACT: Observability), so the banner is JSON lines like every other entry, printed
 * whatever LOG_LEVEL says (a start that says nothing of where it listens helps no one), and holds no
 * credential, not even a sign-in link: it names the file they are in (docs/decisions.md, "The start
 * banner is a log entry when stdout is the log").
 */
export function printStartBanner(banner: StartBanner, format: LogFormat): void {
  if (format === 'pretty') {
    console.log(bannerText(banner).join('\n'))
    return
  }
  const log = createLogger('info', { format: 'json', to: 'stdout' })
  const { demo, ...where } = banner
  log.info(`Growth Automation Service listening on ${banner.api}`, where)
  if (!demo) return
  const { workspace } = demo.workspace
  log.info(`Demo workspace: ${workspace.name} (${workspace.id}, plan ${workspace.plan}); its credentials and fixture ids are in ${demo.envFile}`, {
    workspaceId: workspace.id,
    envFile: demo.envFile,
    ...(demo.owner ? { consoleSignIn: `growth admin person link ${demo.owner.id}` } : {}),
  })
}

function bannerText(b: StartBanner): string[] {
  const lines = [
    '',
    `Growth Automation Service listening on ${b.api}`,
    `  database: ${b.database}`,
    `  reference: ${b.reference}`,
    ...(b.metrics ? [`  metrics: ${b.metrics}`] : []),
    ...(b.traces ? [`  traces: ${b.traces}`] : []),
    ...(b.requestLog ? [`  request log: ${b.requestLog}`] : []),
  ]
  if (!b.demo) return lines
  const { workspace: demo, envFile, seededNow, owner } = b.demo
  // In full on the first start only: a later start's output (often a captured log) shows the last four.
  const shown = seededNow ? (secret: string) => secret : lastFour
  lines.push(
    '',
    `Demo workspace: ${demo.workspace.name} (${demo.workspace.id}, plan ${demo.workspace.plan})`,
    `  live token: ${shown(demo.tokens.live)}`,
    `  test token: ${shown(demo.tokens.test)}`,
    ...demo.agents.map((a) => `  agent ${a.name} (${a.id}): ${shown(a.credential)}`),
    `  fixtures: ${Object.entries(demo.fixtures).map(([k, v]) => `${k}=${v}`).join(' ')}`,
    ...(owner
      ? [
          `  console: sign in as ${owner.name} (${owner.email}, owner) with ${owner.url}`,
          `    (one use, until ${owner.expiresAt}; every start prints a new link, or: growth admin person link ${owner.id})`,
          ...(owner.passkeysNote ? [`    ${owner.passkeysNote}`] : []),
        ]
      : []),
    ...(seededNow ? [] : [`  (printed in full on the first start only; read them in ${envFile}, readable only by you)`]),
    '',
    `Try it, in another terminal (${envFile} sets BASE, TOKEN, AGENT and the fixture ids):`,
    `  source ${envFile}`,
    seededNow ? `  curl -s ${b.api}/missions -H "Authorization: Bearer ${demo.tokens.live}"` : `  curl -s "$BASE/missions" -H "Authorization: Bearer $TOKEN"`,
  )
  return lines
}
