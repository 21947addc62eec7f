import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { createAgent, RISKS } from '../../../core.ts'
import { CliError } from '../../../errors.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & {
  workspace: string
  name: string
  allow?: string
  description?: string
  maxAmount?: string[]
  maxPercent?: string
  maxRecipients?: string
  maxRecords?: string
  maxRisk?: string
  dataAccess?: string
}

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** `USD:500` or `USD:499.99` -> { amountMinor: 50000, currency: 'USD' }, in the currency's own minor unit. */
function amountOf(text: string): { amountMinor: number; currency: string } {
  const m = /^([A-Z]{3}):(\d+(?:\.\d+)?)$/.exec(text.trim())
  if (!m) throw new CliError(`--max-amount takes CURRENCY:AMOUNT in the currency's own unit, e.g. USD:500 or JPY:50000; got ${JSON.stringify(text)}`)
  const [, currency, amount] = m as unknown as [string, string, string]
  if (!Intl.supportedValuesOf('currency').includes(currency)) throw new CliError(`--max-amount: ${currency} is not an ISO 4217 currency code`)
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  const decimals = amount.split('.')[1]?.length ?? 0
  if (decimals > digits) throw new CliError(`--max-amount ${text}: ${currency} has ${digits} decimal places`)
  return { amountMinor: Math.round(Number(amount) * 10 ** digits), currency }
}

function count(flag: string, text: string | undefined, max?: number): number | undefined {
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text) || (max !== undefined && Number(text) > max)) throw new CliError(`${flag} must be a whole number from 0${max !== undefined ? ` to ${max}` : ''}; got ${JSON.stringify(text)}`)
  return Number(text)
}

/** growth admin agent create --workspace ID --name NAME [--allow ...] [ceilings, risk, data] */
export function registerAgentCreate(agent: Command) {
  agent
    .command('create')
    .description('register an agent and issue its credential (shown once), with what it may do and the limits it acts within')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--name <name>', 'the agent name, as people see it')
    .option('--allow <list>', 'comma-separated tool actions it may request, e.g. ads.pause_campaign (default: none)')
    .option('--description <text>', 'what it is for, as people see it')
    .option('--max-amount <CUR:amount>', 'the most it may spend or move in one request, per currency; repeat it, e.g. --max-amount USD:500 --max-amount JPY:50000 (an amount in any other currency is refused)', collect)
    .option('--max-percent <n>', 'the largest change in percent in one request, e.g. 20')
    .option('--max-recipients <n>', 'the most recipients of one send')
    .option('--max-records <n>', 'the most records one request may touch')
    .option('--max-risk <risk>', `the highest risk it may take without a person: ${RISKS.join(', ')} (default medium)`)
    .option('--data-access <list>', 'comma-separated data it may use, e.g. campaigns,ad_spend (default: the data its allowed actions use)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        if (opts.maxRisk !== undefined && !(RISKS as readonly string[]).includes(opts.maxRisk)) throw new CliError(`--max-risk must be one of ${RISKS.join(', ')}; got ${JSON.stringify(opts.maxRisk)}`)
        const amounts = (opts.maxAmount ?? []).map(amountOf)
        const ceilings = {
          amounts,
          amountPercent: count('--max-percent', opts.maxPercent, 1000),
          recipients: count('--max-recipients', opts.maxRecipients),
          records: count('--max-records', opts.maxRecords),
        }
        const a = await createAgent(sql, {
          by: operatorAuditActor(),
          workspaceId: opts.workspace,
          name: opts.name,
          allow: opts.allow,
          description: opts.description,
          ceilings,
          maxUnattendedRisk: opts.maxRisk as (typeof RISKS)[number] | undefined,
          dataAccess: opts.dataAccess?.split(',').map((d) => d.trim()).filter(Boolean),
        })
        const allowed = (opts.allow ?? '').split(',').map((s) => s.trim()).filter(Boolean)
        out.result({ id: a.id, name: a.name, credentialId: a.credentialId, credential: a.credential }, () => [
          `Created agent ${a.id} "${a.name}" in workspace ${opts.workspace}`,
          ...table([
            ['Allowed:', allowed.length ? allowed.join(', ') : 'nothing yet'],
            ['Credential:', `${a.credential} (id ${a.credentialId})`],
          ]),
        ])
        out.note(`Warning: this credential will not be shown again. Give it to the agent now; revoke it with growth admin agent credential revoke ${a.credentialId}.`)
      }),
    )
}
