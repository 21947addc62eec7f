import { Command } from 'commander'
import pkg from '../../../../package.json'
import { Growth } from '@growth-service/sdk'
import { refusalOf } from '../../api/refusal.ts'
import { addCredentialOptions, type CredentialOptions, resolveCredentials } from '../../api/credentials.ts'
import { CliError } from '../../errors.ts'
import { writeErr } from '../../output.ts'
import { loadConfig } from './config.ts'
import { runGuard } from './proxy.ts'
import { loadConfig as loadServiceConfig } from '../../../../server/src/config.ts'
import { startTracing } from '../../../../server/src/tracing-setup.ts'

type GuardOptions = CredentialOptions & {
  config: string
  waitForApproval?: boolean
  approvalInterval: string
  approvalTimeout: string
  flushTimeout: string
}

/**
 * `growth mcp guard --config FILE [--wait-for-approval] -- COMMAND ARGS...`: the agent gateway in
 * front of another MCP server, attached under `growth mcp` (attachGuard).
 */
function guardCommand(): Command {
  return addCredentialOptions(new Command('guard'), { token: 'the agent credential, svc_agt_... (default: GROWTH_TOKEN, then the profile)' })
    .description('put the agent gateway in front of another MCP server: every tool call is asked first, with the agent’s credential, and reported after')
    .argument('<command>', 'the upstream MCP server to start (stdio), after --')
    .argument('[args...]', 'its arguments')
    .requiredOption('--config <file>', 'JSON mapping each upstream tool to a gateway tool, action, resource and facts (see docs/mcp-guard.md)')
    .option('--wait-for-approval', 'a call that needs a person waits until it is approved (then runs once), rejected or expired, instead of answering at once')
    .option('--approval-interval <ms>', 'with --wait-for-approval: the first wait between two asks; it grows by half each time, to 30 s at most', '2000')
    .option('--approval-timeout <ms>', 'with --wait-for-approval: give up waiting after this long (the approval stays pending)', '600000')
    .option('--flush-timeout <ms>', 'on shutdown, how long to wait for result reports still owed', '30000')
    .showHelpAfterError('(add --help for usage)')
    .action(async (command: string, args: string[], opts: GuardOptions) => {
      try {
        await guard(command, args, opts)
      } catch (err) {
        throw refusalOf(err, false)
      }
    })
}

/** Attaches `guard` under an `mcp` command, with the settings the program's commands share (exitOverride, output). */
export function attachGuard(mcp: Command) {
  mcp.addCommand(guardCommand().copyInheritedSettings(mcp))
}

function milliseconds(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min) throw new CliError(`${flag} must be a whole number of milliseconds >= ${min}; got ${JSON.stringify(value)}`)
  return Number(value)
}

async function guard(command: string, args: string[], opts: GuardOptions) {
  const interval = milliseconds('--approval-interval', opts.approvalInterval, 250)
  const timeout = milliseconds('--approval-timeout', opts.approvalTimeout, 1)
  const flushMs = milliseconds('--flush-timeout', opts.flushTimeout, 0)
  const config = loadConfig(opts.config)
  const { token, baseUrl } = resolveCredentials(opts)
  if (!token.startsWith('svc_agt_')) throw new CliError('growth mcp guard acts as an agent: give it an agent credential (svc_agt_..., from growth admin agent create), not a workspace token')
  const growth = new Growth({ token, baseUrl })
  // Fails fast on a revoked credential or an unreachable API, before the upstream is started.
  const me = await growth.agent.me()
  if ('simulated' in me) throw new CliError('growth mcp guard needs an agent credential')
  const log = (line: string) => writeErr(`growth mcp guard: ${line}\n`)
  // Its spans (each tool call, the SDK's call to the gateway) when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  // A failed export is one line on stderr (stdout is the protocol), as the server's log says it.
  const said = (msg: string, fields: Record<string, unknown> = {}) => log(`${msg}: ${fields.endpoint}${fields.reason ? ` (${fields.reason})` : ''}`)
  const tracing = startTracing(guardTracing(), { warn: said, info: said })
  log(`acting as agent ${me.agent.name} (${me.agent.id})${me.agentsStopped ? `; the workspace has stopped its agents: ${me.stoppedReason ?? ''}` : ''}`)
  // A mapping to a tool action the agent is not permitted (or that is misspelt) is denied on every call: say so now.
  const permitted = me.permissions.map((p) => `${p.tool}.${p.action}`)
  const unpermitted = Object.entries(config.tools).filter(([, m]) => !permitted.includes(`${m.tool}.${m.action}`))
  if (unpermitted.length) {
    log(`${opts.config} maps ${unpermitted.map(([name, m]) => `${name} to ${m.tool}.${m.action}`).join(', ')}, which ${me.agent.name} is not permitted (it may ${permitted.join(', ') || 'do nothing yet'}): the gateway denies every such call until an owner permits it`)
  }
  await runGuard({
    config,
    configFile: opts.config,
    command,
    args,
    agent: growth.agent,
    waitForApproval: opts.waitForApproval ? { intervalMs: interval, timeoutMs: timeout } : false,
    flushMs,
    version: pkg.version,
    log,
  })
  await tracing?.shutdown().catch(() => {})
}

/** The OpenTelemetry settings, checked as the server checks them; the service is growth-mcp-guard unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES' service.name) says otherwise. */
function guardTracing() {
  let tracing
  try {
    tracing = loadServiceConfig(Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('OTEL_')))).tracing
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  return tracing && !process.env.OTEL_SERVICE_NAME && tracing.resource['service.name'] === undefined ? { ...tracing, serviceName: 'growth-mcp-guard' } : tracing
}
