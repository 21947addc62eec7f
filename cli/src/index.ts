import { Command } from 'commander'
import pkg from '../../package.json'
import { registerActionDecision } from './commands/admin/action/decide.ts'
import { registerAgentCreate } from './commands/admin/agent/create.ts'
import { registerAgentCredential } from './commands/admin/agent/credential.ts'
import { registerAgentRetire } from './commands/admin/agent/retire.ts'
import { registerAgentsResume } from './commands/admin/agents/resume.ts'
import { registerAgentsStop } from './commands/admin/agents/stop.ts'
import { registerApprovalDecision } from './commands/admin/approval/decide.ts'
import { registerInbox } from './commands/admin/inbox.ts'
import { registerAudit } from './commands/admin/audit.ts'
import { registerDemo } from './commands/admin/demo.ts'
import { registerMigrate } from './commands/admin/migrate.ts'
import { registerPersonAdd } from './commands/admin/person/add.ts'
import { registerPersonLink } from './commands/admin/person/link.ts'
import { registerPersonList } from './commands/admin/person/list.ts'
import { registerPersonRemove } from './commands/admin/person/remove.ts'
import { registerPolicyExport } from './commands/admin/policy/export.ts'
import { registerPolicyTest } from './commands/admin/policy/test.ts'
import { registerPolicyPlan } from './commands/admin/policy/plan.ts'
import { registerPolicyApply } from './commands/admin/policy/apply.ts'
import { registerPolicyHistory } from './commands/admin/policy/history.ts'
import { registerSecretsRotateKey } from './commands/admin/secrets/rotate-key.ts'
import { registerTokenCreate } from './commands/admin/token/create.ts'
import { registerTokenList } from './commands/admin/token/list.ts'
import { registerTokenRevoke } from './commands/admin/token/revoke.ts'
import { registerWebhookAttempts } from './commands/admin/webhook/attempts.ts'
import { registerWebhookCreate } from './commands/admin/webhook/create.ts'
import { registerWebhookList } from './commands/admin/webhook/list.ts'
import { registerWebhookRotate } from './commands/admin/webhook/rotate.ts'
import { registerWebhookUpdate } from './commands/admin/webhook/update.ts'
import { registerWebhookTest } from './commands/admin/webhook/test.ts'
import { registerWebhookToggle } from './commands/admin/webhook/toggle.ts'
import { registerWorkspaceCreate } from './commands/admin/workspace/create.ts'
import { registerWorkspaceList } from './commands/admin/workspace/list.ts'
import { registerWorker } from './commands/worker.ts'
import { registerApiCommands } from './api/commands.ts'
import { registerListen } from './api/listen.ts'
import { registerLogin } from './api/login.ts'
import { registerMcp } from './mcp/command.ts'
import { registerWebhooksVerify } from './commands/webhooks/verify.ts'
import { attachGuard } from './mcp/guard/command.ts'
import { handleError } from './errors.ts'
import { shareGlobalOptions } from './global-options.ts'
import { flush, writeErr, writeOut } from './output.ts'

/**
 * The whole command tree, in one place. Each verb lives in its own file under commands/.
 * With `json`, commander prints no usage error of its own: the top-level handler prints it as the
 * error envelope, as every other refusal under --json is.
 */
export function buildProgram(opts: { json?: boolean } = {}): Command {
  const program = new Command('growth')
    .description(
      'The Growth Automation Service from a terminal. Every operation of the API is a command named as its SDK method (growth decisions list, growth agent authorize), through the API with --token/GROWTH_TOKEN or a profile saved by growth login. The admin commands and growth worker act on the database directly (DATABASE_URL, or the embedded database in DATA_DIR), whether or not the server is running.',
    )
    .version(pkg.version, '-v, --version')
    // Settings inherited by every command created below with .command():
    .exitOverride()
    .configureOutput({ writeOut, writeErr, ...(opts.json ? { outputError: () => {} } : {}) })
    .showHelpAfterError(opts.json ? false : '(add --help for usage)')
    .showSuggestionAfterError(true)
    // A command's options are its own: those after a subcommand's name are the subcommand's
    // (growth mcp --token ... beside growth mcp guard --token ...).
    .enablePositionalOptions()

  const admin = program.command('admin').description('issue credentials, register agents, manage the database')
  registerMigrate(admin)
  registerDemo(admin)

  const workspace = admin.command('workspace').description('workspaces')
  registerWorkspaceCreate(workspace)
  registerWorkspaceList(workspace)

  const token = admin.command('token').description('API tokens of workspaces')
  registerTokenCreate(token)
  registerTokenList(token)
  registerTokenRevoke(token)

  const agent = admin.command('agent').description('agents and their credentials')
  registerAgentCreate(agent)
  registerAgentCredential(agent)
  registerAgentRetire(agent)

  const agents = admin.command('agents').description('all the agents of a workspace at once (the kill switch)')
  registerAgentsStop(agents)
  registerAgentsResume(agents)

  const action = admin.command('action').description('proposed changes waiting for a person')
  registerActionDecision(action, 'approve')
  registerActionDecision(action, 'reject')

  registerInbox(admin)

  const approval = admin.command('approval').description("decide a send or an agent's request waiting for a person")
  registerApprovalDecision(approval, 'approve')
  registerApprovalDecision(approval, 'reject')

  const webhook = admin.command('webhook').description('webhook endpoints: add, list, change URL or events, rotate secrets, test, read attempts, disable and enable')
  registerWebhookCreate(webhook)
  registerWebhookList(webhook)
  registerWebhookRotate(webhook)
  registerWebhookUpdate(webhook)
  registerWebhookTest(webhook)
  registerWebhookAttempts(webhook)
  registerWebhookToggle(webhook, 'disable')
  registerWebhookToggle(webhook, 'enable')

  const policy = admin.command('policy').description("the workspace's agent policy as one document: tools, agents' permissions, rules")
  registerPolicyExport(policy)
  registerPolicyPlan(policy)
  registerPolicyApply(policy)
  registerPolicyTest(policy)
  registerPolicyHistory(policy)

  const person = admin.command('person').description('the people of a workspace, who sign in to the console: add, list, remove, sign-in links')
  registerPersonAdd(person)
  registerPersonList(person)
  registerPersonRemove(person)
  registerPersonLink(person)
  registerAudit(admin)

  const secrets = admin.command('secrets').description('the key that seals webhook secrets and workspace keys at rest')
  registerSecretsRotateKey(secrets)

  registerWorker(program)
  registerLogin(program)
  registerApiCommands(program)
  registerListen(program)
  attachGuard(registerMcp(program))
  registerWebhooksVerify(program.command('webhooks').description('for receivers of webhook deliveries'))
  // --token, --base-url, --profile and --json before the command as well as after it.
  shareGlobalOptions(program)

  return program
}

/** Run the CLI and exit with its code: 0 done, 1 refused (usage or operator error), 2 unexpected failure. */
export async function main(argv: string[] = process.argv): Promise<never> {
  const json = argv.includes('--json')
  const program = buildProgram({ json })
  let code = 0
  if (argv.length <= 2) {
    program.outputHelp()
  } else {
    try {
      await program.parseAsync(argv)
    } catch (err) {
      code = handleError(err, { json })
    }
  }
  await flush()
  // Exit now: an embedded database handle (PGlite) could keep the process alive after closing.
  process.exit(code)
}

if (import.meta.main) await main()
