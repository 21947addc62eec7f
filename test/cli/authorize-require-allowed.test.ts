import { beforeAll, describe, expect, test } from 'bun:test'
import { ruleIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { CLI_TIMEOUT, growthIn, type Run } from './run.ts'

/**
 * `growth agent authorize --require-allowed`, run as a process against the test server: a decision
 * other than `allowed` exits 1 with one line on stderr naming the decision, the reason, the checks
 * that did not pass (and the approval that waits for a person), the answer on stdout as without
 * the flag; so `growth agent authorize ... --require-allowed && act` acts only on a yes. Without the
 * flag a decision is an answered call: exit 0 whatever it is.
 */
const T = CLI_TIMEOUT
let ws: Workspace
let run: (args: string[]) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  // The workspace's agent may pause campaigns; a person is asked before it pauses one touching more than 100 records.
  await ruleIn(ws.id, { match: [{ tool: 'ads', action: 'pause_campaign' }], when: [{ fact: 'records', op: '>', value: 100 }] }, 'require_approval')
  const growth = growthIn(h.dataDir)
  const env = { GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.agent.credential, NO_COLOR: '' }
  run = (args) => growth(['agent', 'authorize', ...args], env)
}, T)

const ALLOWED = ['--tool', 'ads', '--action', 'pause_campaign', '--resource', 'cmp_spring', '--fact', 'records=10']
const DENIED = ['--tool', 'ads', '--action', 'adjust_budget', '--resource', 'cmp_spring', '--fact', 'amountPercent=10']
const WAITS = ['--tool', 'ads', '--action', 'pause_campaign', '--resource', 'cmp_spring', '--fact', 'records=500']

describe('growth agent authorize --require-allowed', () => {
  test(
    'allowed: exit 0, the answer on stdout, nothing on stderr, as without the flag',
    async () => {
      const r = await run([...ALLOWED, '--require-allowed', '--json'])
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
      expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allowed', mayProceed: true })
      const plain = await run([...ALLOWED, '--require-allowed'])
      expect({ code: plain.code, stderr: plain.stderr }).toEqual({ code: 0, stderr: '' })
      expect(plain.stdout).toContain('decision: allowed')
    },
    T,
  )

  test(
    'denied: exit 1, one line on stderr naming the decision, the reason and the checks that did not pass; stdout the answer as without the flag',
    async () => {
      const r = await run([...DENIED, '--require-allowed'])
      expect(r.code).toBe(1)
      expect(r.stdout).toContain('decision: denied')
      const lines = r.stderr.trimEnd().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^error: denied \(--require-allowed\): Denied: Test agent is not permitted to change a daily budget .*Checks not passed: permission, data\. Authorization auth_\w+\.$/)

      const j = await run([...DENIED, '--require-allowed', '--json'])
      expect(j.code).toBe(1)
      const answer = JSON.parse(j.stdout)
      expect(answer).toMatchObject({ decision: 'denied', mayProceed: false })
      const stderr = j.stderr.trimEnd().split('\n')
      expect(stderr).toHaveLength(1)
      const envelope = JSON.parse(stderr[0]!)
      expect(Object.keys(envelope)).toEqual(['error'])
      expect(envelope.error).toEqual({ code: 'denied', message: expect.stringContaining(answer.reason), requestId: expect.stringMatching(/^req_/) })
      expect(envelope.error.message).toContain(`Authorization ${answer.authorizationId}.`)
    },
    T,
  )

  test(
    'requires_approval: exit 1, the line names the approval that waits for a person',
    async () => {
      const j = await run([...WAITS, '--require-allowed', '--json'])
      expect(j.code).toBe(1)
      const answer = JSON.parse(j.stdout)
      expect([answer.decision, answer.mayProceed, answer.approvalId.slice(0, 4)]).toEqual(['requires_approval', false, 'apr_'])
      const envelope = JSON.parse(j.stderr)
      expect(envelope.error.code).toBe('requires_approval')
      expect(envelope.error.message).toBe(
        `${answer.reason} Checks not passed: rules. Approval ${answer.approvalId} waits for a person; once approved, the same request is allowed once. Authorization ${answer.authorizationId}.`,
      )
      const plain = await run([...WAITS, '--require-allowed'])
      expect(plain.code).toBe(1)
      expect(plain.stderr).toMatch(/^error: requires_approval \(--require-allowed\): Needs a person's approval: .* Approval apr_\w+ waits for a person; .* Authorization auth_\w+\.\n$/)
    },
    T,
  )

  test(
    'without the flag a decision is an answered call: exit 0 on denied and requires_approval alike',
    async () => {
      for (const args of [DENIED, WAITS]) {
        const r = await run([...args, '--json'])
        expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
        expect(JSON.parse(r.stdout).mayProceed).toBe(false)
      }
    },
    T,
  )

  test(
    'a shell runs the next command only on allowed',
    async () => {
      const h = await getHarness()
      const growth = `${JSON.stringify(process.execPath)} cli/bin/growth.ts agent authorize`
      const shell = (args: string[]) =>
        Bun.spawn(['sh', '-c', `${growth} ${args.join(' ')} --require-allowed >/dev/null 2>&1 && echo acted || echo held`], {
          cwd: `${import.meta.dir}/../..`,
          env: { ...process.env, DATA_DIR: h.dataDir, GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.agent.credential },
          stdout: 'pipe',
        })
      const said = await Promise.all([ALLOWED, DENIED].map(async (args) => (await new Response(shell(args).stdout).text()).trim()))
      expect(said).toEqual(['acted', 'held'])
    },
    T,
  )

  test('--help says what --require-allowed does', async () => {
    const r = await run(['--help'])
    expect(r.stdout).toMatch(/--require-allowed\s+exit 1 unless the decision is allowed/)
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('To act only on allowed: `growth agent authorize ... --require-allowed && act`.')
  }, T)
})

