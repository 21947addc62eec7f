/**
 * The one place the CLI reaches into the server: everything an operator command does is a function
 * of the server's domain and store layers, called here on the database directly (never over HTTP).
 */
export { loadConfig } from '../../server/src/config.ts'
export { DATABASE_UNREACHABLE, explainStartupError } from '../../server/src/startup-errors.ts'
export { loadSecretsKeyring, type SecretsKeySource, secretsKeySource } from '../../server/src/secrets-key.ts'
export { databaseShown, shownUrl } from '../../server/src/core/shown-url.ts'
export { activeTraceparent, inSpan, SpanKind } from '../../server/src/core/tracing.ts'
export { SecretsKeyError, type SecretsKeyring, useSecretsKeyring } from '../../server/src/core/secrets.ts'
export { prepareSecretsAtRest, resealSecrets, sealedNotice } from '../../server/src/domain/secrets-at-rest.ts'
export { SCOPES } from '../../server/src/core/caller.ts'
export { PLANS, RISKS } from '../../server/src/core/enums.ts'
export { DomainError, NotFoundError, RuleError } from '../../server/src/core/errors.ts'
export { embeddedDatabaseExists, embeddedOwner, openDatabase, RETURNING_CLIENT, type Database, type Sql } from '../../server/src/store/driver/db.ts'
export { migrate, migrationsEditedNotice, NewerSchemaError, type MigrationResult } from '../../server/src/store/driver/migrate.ts'
export { createWorkspace, listWorkspaces, setAgentsStopped } from '../../server/src/domain/workspaces.ts'
export { createToken, listTokens, MAX_TOKEN_OVERLAP_MS, revokeToken, rotateToken, type TokenListed } from '../../server/src/domain/credentials.ts'
export { createAgent, issueAgentCredential, retireAgent } from '../../server/src/domain/agents.ts'
export { exportPolicy } from '../../server/src/domain/agent-policy-export.ts'
export { policyYaml } from '../../server/src/domain/agent-policy-document.ts'
export { closestField, fieldsAt } from '../../server/src/domain/document-fields.ts'
export { documentPolicy, type PolicyPlan, planPolicy } from '../../server/src/domain/agent-policy-plan.ts'
export { sameRuleNotes } from '../../server/src/domain/agent-policy-changes.ts'
export { applyPolicy } from '../../server/src/domain/agent-policy-apply.ts'
export { policyHistory } from '../../server/src/domain/agent-policy-history.ts'
export { parsePolicyCases, type PolicyCase, testPolicy } from '../../server/src/domain/agent-policy-test.ts'
export { decideApproval } from '../../server/src/domain/approvals.ts'
export { type InboxItem, waitingIn } from '../../server/src/domain/inbox.ts'
export { operatorDecider } from '../../server/src/domain/deciders.ts'
export { type Decider, describeDecider } from '../../server/src/core/decider.ts'
export { type Actor, actorText } from '../../server/src/core/actor.ts'
export { decideAction } from '../../server/src/domain/actions.ts'
export type { Action } from '../../server/src/schemas/actions.ts'
export {
  createEndpoint,
  listAttempts,
  listEndpoints,
  RECOVERY_WINDOW_MS,
  rotateSecret,
  sendTestEvent,
  setEndpointEnabled,
  updateEndpoint,
} from '../../server/src/domain/webhooks.ts'
export { addPerson, listPeople, removePerson, ROLES } from '../../server/src/domain/people.ts'
export { signInLink } from '../../server/src/domain/sign-in.ts'
export { AUDIT_KINDS, listAudit } from '../../server/src/domain/audit.ts'
export { parseDuration } from '../../server/src/core/time.ts'
export { canonicalJson } from '../../server/src/core/canonical-json.ts'
export { createLogger } from '../../server/src/core/log.ts'
