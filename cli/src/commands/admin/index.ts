import type { Command } from 'commander'
import { registerActionDecision } from './action/decide.ts'
import { registerAgentCreate } from './agent/create.ts'
import { registerAgentCredential } from './agent/credential.ts'
import { registerAgentRetire } from './agent/retire.ts'
import { registerAgentsResume } from './agents/resume.ts'
import { registerAgentsStop } from './agents/stop.ts'
import { registerApprovalDecision } from './approval/decide.ts'
import { registerInbox } from './inbox.ts'
import { registerAudit } from './audit.ts'
import { registerDemo } from './demo.ts'
import { registerMigrate } from './migrate.ts'
import { registerPersonAdd } from './person/add.ts'
import { registerPersonLink } from './person/link.ts'
import { registerPersonList } from './person/list.ts'
import { registerPersonRemove } from './person/remove.ts'
import { registerPolicyExport } from './policy/export.ts'
import { registerPolicyTest } from './policy/test.ts'
import { registerPolicyPlan } from './policy/plan.ts'
import { registerPolicyApply } from './policy/apply.ts'
import { registerPolicyHistory } from './policy/history.ts'
import { registerSecretsRotateKey } from './secrets/rotate-key.ts'
import { registerTokenCreate } from './token/create.ts'
import { registerTokenList } from './token/list.ts'
import { registerTokenRevoke } from './token/revoke.ts'
import { registerTokenRotate } from './token/rotate.ts'
import { registerWebhookAttempts } from './webhook/attempts.ts'
import { registerWebhookCreate } from './webhook/create.ts'
import { registerWebhookList } from './webhook/list.ts'
import { registerWebhookRotate } from './webhook/rotate.ts'
import { registerWebhookUpdate } from './webhook/update.ts'
import { registerWebhookTest } from './webhook/test.ts'
import { registerWebhookToggle } from './webhook/toggle.ts'
import { registerWorkspaceCreate } from './workspace/create.ts'
import { registerWorkspaceList } from './workspace/list.ts'

/** `growth admin ...`: the operator commands, on the database directly (cli/src/core.ts). */
export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('issue credentials, register agents, manage the database')
  registerMigrate(admin)
  registerDemo(admin)

  const workspace = admin.command('workspace').description('workspaces')
  registerWorkspaceCreate(workspace)
  registerWorkspaceList(workspace)

  const token = admin.command('token').description('API tokens of workspaces')
  registerTokenCreate(token)
  registerTokenList(token)
  registerTokenRotate(token)
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
}
