import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { POLICY_SCHEMA_PATH, renderPolicySchema } from '../../scripts/policy-schema.ts'

test('the committed JSON Schema of the agent policy is what its zod schema generates (run npm run policy:schema)', () => {
  const committed = readFileSync(join(import.meta.dir, '../..', POLICY_SCHEMA_PATH), 'utf8')
  if (committed !== renderPolicySchema()) throw new Error(`${POLICY_SCHEMA_PATH} is out of date with server/src/schemas/agent-policy.ts: run npm run policy:schema`)
  const schema = JSON.parse(committed)
  expect(schema.required).toEqual(['tools'])
  expect(schema.additionalProperties).toBe(false)
  expect(Object.keys(schema.properties)).toEqual(['tools', 'agents', 'missingFacts', 'rules'])
})
