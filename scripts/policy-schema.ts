import { z } from 'zod'
import { AgentPolicy } from '../server/src/schemas/agent-policy.ts'

/** Where the agent policy document's JSON Schema is committed (docs/policy.md links it). */
export const POLICY_SCHEMA_PATH = 'docs/agent-policy.schema.json'

/** The JSON Schema of the agent policy document, generated from its one zod schema, as committed. */
export function renderPolicySchema(): string {
  const schema = z.toJSONSchema(AgentPolicy, { io: 'input', target: 'draft-2020-12' })
  const { $schema, ...rest } = schema
  return `${JSON.stringify({ $schema, title: 'Growth agent policy', ...rest }, null, 2)}\n`
}
