import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

/** The guard's tests and benchmark: `growth mcp guard` started by an MCP client, as a desktop client does. */
export const ROOT = join(import.meta.dir, '..', '..', '..')
export const UPSTREAM = [process.execPath, join(ROOT, 'test', 'mcp', 'support', 'upstream.ts')]

/** The configuration the tests use: the e-mail tools as email.send_campaign, recipients counted from `to`. */
export const CONFIG = {
  tools: {
    send_email: { tool: 'email', action: 'send_campaign', resource: '$.subject', facts: { recipients: '$.to.length' } },
    bounce: { tool: 'email', action: 'send_campaign', resource: '$.subject', facts: { recipients: '$.to.length' } },
    slow_email: { tool: 'email', action: 'send_campaign', resource: '$.subject', facts: { recipients: '$.to.length' } },
  },
}

export function tempDir(prefix: string) {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** The calls the upstream received, from its log file. */
export function upstreamCalls(logFile: string): { name: string; args: Record<string, unknown> }[] {
  let text = ''
  try {
    text = readFileSync(logFile, 'utf8')
  } catch {
    return []
  }
  return text.trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l))
}

export type Connected = { client: Client; stderr: () => string; close: () => Promise<void>; pid: number | null }

async function connect(command: string, args: string[], env: Record<string, string>): Promise<Connected> {
  const transport = new StdioClientTransport({ command, args, cwd: ROOT, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: 'guard-test', version: '1.0.0' })
  try {
    await client.connect(transport)
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${stderr}`)
  }
  return { client, stderr: () => stderr, close: () => client.close(), pid: transport.pid }
}

/** `growth mcp guard --config <CONFIG> [flags] -- <the test upstream>`, connected. */
export async function startGuard(opts: { credential: string; baseUrl: string; logFile: string; config?: unknown; flags?: string[] }): Promise<Connected> {
  const configFile = join(tempDir('growth-guard-config-'), 'guard.json')
  writeFileSync(configFile, JSON.stringify(opts.config ?? CONFIG))
  return connect(process.execPath, [join(ROOT, 'cli', 'bin', 'growth.ts'), 'mcp', 'guard', '--config', configFile, ...(opts.flags ?? []), '--', ...UPSTREAM], {
    GROWTH_TOKEN: opts.credential,
    GROWTH_BASE_URL: opts.baseUrl,
    GROWTH_CONFIG_DIR: tempDir('growth-guard-profiles-'),
    UPSTREAM_LOG: opts.logFile,
  })
}

/** The same upstream, connected directly (the benchmark's baseline). */
export function startUpstream(logFile: string): Promise<Connected> {
  return connect(UPSTREAM[0]!, UPSTREAM.slice(1), { UPSTREAM_LOG: logFile })
}

export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n')
}
