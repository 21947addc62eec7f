import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promtool, runPromtool, scratch } from '../support/prometheus.ts'

/**
 * The alert rules docs/operations.md ships (docs/alerts.yml): promtool finds them valid, and drives
 * each with the series of docs/alerts.test.yml (it fires on the bad ones, stays quiet on the good).
 * Every metric a rule reads is one the service exposes (or Prometheus's own `up`).
 */
const DOCS = join(import.meta.dir, '../../docs')
const rules = readFileSync(join(DOCS, 'alerts.yml'), 'utf8')
const cases = readFileSync(join(DOCS, 'alerts.test.yml'), 'utf8')

describe.skipIf(!promtool)('docs/alerts.yml', () => {
  test('promtool check rules passes', async () => {
    const r = await runPromtool(['check', 'rules', join(DOCS, 'alerts.yml')])
    expect(r.out).toContain('SUCCESS: 10 rules found')
    expect(r.code).toBe(0)
  })

  test('promtool test rules drives every alert with docs/alerts.test.yml', async () => {
    const r = await runPromtool(['test', 'rules', join(DOCS, 'alerts.test.yml')])
    expect(r.out, r.out).toContain('SUCCESS')
    expect(r.code).toBe(0)
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!)
    for (const name of alerts) expect(cases).toContain(`alertname: ${name}\n        exp_alerts:\n          - exp_labels`)
  })

  test('the test would catch a rule that no longer fires (a threshold raised beyond the series)', async () => {
    const dir = scratch({ 'alerts.yml': rules.replace('growth_webhook_backlog) > 1000', 'growth_webhook_backlog) > 100000'), 'alerts.test.yml': cases })
    const r = await runPromtool(['test', 'rules', join(dir, 'alerts.test.yml')])
    expect(r.code).toBe(1)
    expect(r.out).toContain('GrowthWebhookBacklog')
  })

  test('every growth command a summary tells the operator to run is one the CLI has', async () => {
    const commands = [...rules.matchAll(/\bgrowth((?: [a-z][a-z-]*)+)/g)].map((m) => m[1]!.trim().split(' '))
    expect(commands.length).toBeGreaterThan(0)
    for (const words of commands) {
      const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', ...words, '--help'], { cwd: join(import.meta.dir, '../..'), stdout: 'pipe', stderr: 'pipe' })
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
      expect(code, `growth ${words.join(' ')}`).toBe(0)
      expect(out).toStartWith(`Usage: growth ${words.join(' ')} `)
    }
  }, 30_000)

  test('every metric a rule reads is one the service exposes', () => {
    const exposed = readFileSync(join(import.meta.dir, '../../server/src/core/metrics.ts'), 'utf8')
    const read = new Set([...rules.matchAll(/\b(growth_[a-z_]+?)(?:_bucket)?\b[{[)\s]/g)].map((m) => m[1]!))
    expect(read.size).toBeGreaterThan(5)
    for (const name of read) expect(exposed).toContain(`'${name}'`)
  })
})
