import { expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { agentIn } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { CLI_TIMEOUT, growthIn } from './run.ts'

/**
 * `growth agent me` for people: a list of sentences (the ceilings in words) reads as sentences, one
 * after another, not joined by commas after their full stops ("At most 500.00 USD in one request.,
 * No amount in any other currency."), as the agent walk saw it. A list of words stays a list.
 */
test(
  'a list of sentences is printed as sentences; a list of words with commas',
  async () => {
    const h = await getHarness()
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { name: 'Refund Bot', allow: 'ads.pause_campaign,ads.adjust_budget', ceilings: { amounts: [{ amountMinor: 50_000, currency: 'USD' }] } })
    const env = { GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: agent.credential, GROWTH_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'growth-me-')), NO_COLOR: '' }
    const r = await growthIn(h.dataDir)(['agent', 'me'], env)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('  sentences: At most 500.00 USD in one request. No amount in any other currency.\n')
    expect(r.stdout).toContain('dataAccess: ad_spend, campaigns\n')
  },
  CLI_TIMEOUT,
)
