/**
 * The one place the CLI reaches into the server: everything an operator command does is a function
 * of the server's domain and store layers, called here on the database directly (never over HTTP).
 */
export { loadConfig } from '../../server/src/config.ts'
export { openDatabase, type Database, type Sql } from '../../server/src/store/db.ts'
export { migrate, type MigrationResult } from '../../server/src/store/migrate.ts'
export {
  AdminError,
  PLANS,
  createAgent,
  createToken,
  createWorkspace,
  revokeToken,
  setAgentsStopped,
} from '../../server/src/domain/admin.ts'
export { decideApproval } from '../../server/src/domain/approvals.ts'
export { SCOPES } from '../../server/src/routes/operation.ts'
export { decideAction } from '../../server/src/domain/actions.ts'
export type { ActionT } from '../../server/src/schemas/actions.ts'
