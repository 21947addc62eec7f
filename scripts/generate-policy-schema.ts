/**
 * Regenerate the agent policy document's JSON Schema from its zod schema
 * (server/src/schemas/agent-policy.ts):
 *   npm run policy:schema
 * test/policy/schema-drift.test.ts fails when the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { POLICY_SCHEMA_PATH, renderPolicySchema } from './policy-schema.ts'

writeFileSync(join(import.meta.dir, '..', POLICY_SCHEMA_PATH), renderPolicySchema())
console.log(`wrote ${POLICY_SCHEMA_PATH}`)
