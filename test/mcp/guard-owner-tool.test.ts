import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI_TIMEOUT, growthIn, jsonOf, type Run } from '../cli/run.ts'
import { getHarness } from '../harness.ts'
import { startGuard, tempDir, textOf, upstreamCalls } from './support/guard.ts'

/**
 * `growth mcp guard` onto a tool the workspace's owner added with `growth admin policy apply`
 * (github.create_issue), not one of the standard catalogue: from a blank workspace, the tool, the
 * agent's permission and a count rule are applied; then an MCP client calls the upstream's
 * create_issue through the guard. The first call is allowed and runs; the second needs a person
 * (the rule counts the first) and is not run.
 */
const T = CLI_TIMEOUT
let growth: (args: string[]) => Promise<Run>
let base: string

beforeAll(async () => {
  const h = await getHarness()
  base = `${h.url}/api/v1`
  growth = (args) => growthIn(h.dataDir)(args)
}, 120_000)

const GITHUB = `  - key: github
    name: GitHub
    description: Issues of the connected repositories.
    actions:
      - { key: create_issue, name: Open an issue, risk: low, dataUsed: [ repositories ], reversible: true }
`

describe('growth mcp guard onto a tool the owner added', () => {
  test('an upstream tool mapped onto github.create_issue is decided by the applied policy', async () => {
    const ws = jsonOf(await growth(['admin', 'workspace', 'create', '--name', 'Issues', '--json']), 'admin workspace create')
    const agent = jsonOf(await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Triage Bot', '--allow', 'ads.read_performance', '--json']), 'admin agent create')
    const exported = await growth(['admin', 'policy', 'export', '--workspace', ws.id])
    expect(exported.code).toBe(0)
    const policy = exported.stdout
      .replace(/^tools:\n/m, `tools:\n${GITHUB}`)
      .replace(/allow: \[ ads\.read_performance \]/, 'allow: [ github.create_issue ]')
      .replace(/^rules: \[\]\n?$/m, "rules:\n  - effect: require_approval\n    match: [ { tool: github, action: create_issue } ]\n    when: [ { count: allowed, window: 24h, op: '>=', value: 1 } ]\n")
    expect(policy).toContain('allow: [ github.create_issue ]')
    const dir = mkdtempSync(join(tmpdir(), 'growth-guard-policy-'))
    writeFileSync(join(dir, 'policy.yaml'), policy)
    const plan = jsonOf(await growth(['admin', 'policy', 'plan', '--workspace', ws.id, join(dir, 'policy.yaml'), '--json']), 'admin policy plan')
    const applied = await growth(['admin', 'policy', 'apply', '--workspace', ws.id, join(dir, 'policy.yaml'), '--plan', plan.planId])
    expect(applied.code).toBe(0)

    const logFile = join(tempDir('growth-guard-upstream-'), 'calls.jsonl')
    const guard = await startGuard({
      credential: agent.credential,
      baseUrl: base,
      logFile,
      config: { tools: { create_issue: { tool: 'github', action: 'create_issue', resource: '$.title' } } },
    })
    try {
      expect(guard.stderr()).toContain('create_issue as github.create_issue')
      const first = await guard.client.callTool({ name: 'create_issue', arguments: { title: 'Checkout fails on Safari' } })
      expect(first.isError).toBeFalsy()
      expect(textOf(first)).toBe('Opened "Checkout fails on Safari".')
      const second = await guard.client.callTool({ name: 'create_issue', arguments: { title: 'Another one' } })
      expect(second.isError).toBe(true)
      expect(textOf(second)).toStartWith('create_issue was not run: a person must approve it first')
      expect(textOf(second)).toContain('Ask a person before any agent uses github.create_issue (open an issue) when it has already been allowed to do so at least 1 time in the last 24 hours.')
      expect(upstreamCalls(logFile)).toEqual([{ name: 'create_issue', args: { title: 'Checkout fails on Safari' } }])
    } finally {
      await guard.close()
    }
  }, 4 * T)
})
