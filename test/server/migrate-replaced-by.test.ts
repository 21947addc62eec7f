import { expect, test } from 'bun:test'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { migrate } from '../../server/src/store/driver/migrate.ts'
import { MIGRATION_FILES, migratedAsOlderRelease } from '../support/older-schema.ts'
import { scratchDatabase } from '../support/scratch-database.ts'

/**
 * Migration 0035: a rotated credential names the one that replaced it (`replaced_by`). On a
 * database made by the migrations before it, the rotations already made are read from the audit
 * list: a token's (`token.rotated`, its subject the old token) and an agent credential's
 * (`agent.credential_rotated`, its subject the agent, the old credential in `replaces`). A
 * credential never rotated, and another workspace's of the same id, replace nothing.
 */
const BEFORE = MIGRATION_FILES.filter((f) => f < '0035')

test('the rotations already made name the credential that replaced each one, read from the audit list', async () => {
  const scratch = await scratchDatabase(process.env.DATABASE_URL, 'growth_replaced_by')
  const db = await openDatabase({ databaseUrl: scratch.databaseUrl, dataDir: scratch.dataDir ?? '', poolMax: 2 })
  const { sql } = db
  try {
    await migratedAsOlderRelease(sql, BEFORE)
    const ws = 'ws_01m8replaced000000000000000'
    const other = 'ws_01m8replacedother0000000000'
    for (const w of [ws, other]) await sql`INSERT INTO workspaces (workspace_id, name, plan, secret_key) VALUES (${w}, 'Before 0035', 'growth', 'k')`
    await sql`INSERT INTO agents (workspace_id, id, name, owner) VALUES (${ws}, 'agt_01m8replaced0000000000000', 'Pacer', 'workspace')`
    const credential = (workspace: string, id: string, kind: 'live' | 'agent') => ({
      workspace_id: workspace, id, kind, agent_id: kind === 'agent' ? 'agt_01m8replaced0000000000000' : null,
      token_hash: `hash-${workspace}-${id}`, token_hint: id.slice(-4), scopes: ['read:growth'],
    })
    await sql`INSERT INTO credentials ${sql([
      credential(ws, 'cred_old_token', 'live'),
      credential(ws, 'cred_new_token', 'live'),
      credential(ws, 'cred_old_agent', 'agent'),
      credential(ws, 'cred_new_agent', 'agent'),
      credential(ws, 'cred_never_rotated', 'live'),
      // Another workspace's credential of the same id as the rotated token: not the one the audit entry names.
      credential(other, 'cred_old_token', 'live'),
    ])}`
    const actor = { kind: 'operator', login: 'maya' }
    await sql`INSERT INTO audit_entries ${sql([
      { workspace_id: ws, id: 'aud_1', actor, action: 'token.rotated', subject: 'cred_old_token', detail: { credentialId: 'cred_new_token', mode: 'live', overlapSeconds: 3600 } },
      { workspace_id: ws, id: 'aud_2', actor, action: 'agent.credential_rotated', subject: 'agt_01m8replaced0000000000000', detail: { credentialId: 'cred_new_agent', replaces: 'cred_old_agent', overlapMinutes: 60 } },
      { workspace_id: ws, id: 'aud_3', actor, action: 'token.revoked', subject: 'cred_never_rotated', detail: {} },
    ])}`

    const result = await migrate(sql)
    expect(result.applied).toContain('0035_credential_replaced_by.sql')
    const rows = await sql<{ workspace_id: string; id: string; replaced_by: string | null }[]>`
      SELECT workspace_id, id, replaced_by FROM credentials`
    expect(rows.map((r) => [r.workspace_id, r.id, r.replaced_by]).sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`))).toEqual([
      [ws, 'cred_never_rotated', null],
      [ws, 'cred_new_agent', null],
      [ws, 'cred_new_token', null],
      [ws, 'cred_old_agent', 'cred_new_agent'],
      [ws, 'cred_old_token', 'cred_new_token'],
      [other, 'cred_old_token', null],
    ])
  } finally {
    await db.close()
    await scratch.drop()
  }
}, 120_000)
