// The owner's edit of the workspace's policy, as a script so that it runs as written: reads the
// policy exported as JSON (growth admin policy export --json), adds the tool GitHub with its action
// create_issue, permits the agent named on the command line to open issues, and asks a person
// before it opens more than one issue in 24 hours. Writes the file back; plan and apply it next.
//   node add-github.js policy.json "Issue triager"
import { readFileSync, writeFileSync } from 'node:fs'

const [file, agent] = process.argv.slice(2)
if (!file || !agent) throw new Error('usage: node add-github.js POLICY.json "AGENT NAME"')
const policy = JSON.parse(readFileSync(file, 'utf8'))
policy.tools.push({
  key: 'github',
  name: 'GitHub',
  description: 'Issues of the connected repositories.',
  actions: [{ key: 'create_issue', name: 'Open an issue', risk: 'low', dataUsed: ['repositories'], reversible: true }],
})
const grant = policy.agents.find((a) => a.agent === agent)
if (!grant) throw new Error(`no agent ${agent} in ${file}`)
grant.allow.push('github.create_issue')
policy.rules.push({
  effect: 'require_approval',
  match: [{ tool: 'github', action: 'create_issue' }],
  agents: [agent],
  when: [{ count: 'allowed', window: '24h', op: '>=', value: 1 }],
})
writeFileSync(file, `${JSON.stringify(policy, null, 2)}\n`)
