import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../cli/run.ts'
import { getHarness } from '../harness.ts'

/**
 * `growth mcp` as an MCP client meets it: the CLI started as its own process (as a desktop client
 * starts it, or as a person runs `growth mcp --http`), and a Client of the official SDK connected to
 * it over stdio or Streamable HTTP. No part of the protocol is mocked.
 */

export type Transport = 'stdio' | 'http'
export const TRANSPORTS: Transport[] = ['stdio', 'http']

export type Connected = {
  client: Client
  /** What the process has written to stderr so far. */
  stderr: () => string
  /** The MCP endpoint, over HTTP. */
  url?: string
  /** Over HTTP: the secret it printed at start, which every request carries. */
  secret?: string
  /** Closes the client and stops the process; its exit code. */
  close(): Promise<number | null>
}

/** The environment of a `growth mcp` process: the token and the test server, and no profile of whoever runs the tests. */
export async function envFor(token: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const { url } = await getHarness()
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GROWTH_')) env[k] = v
  return { ...env, GROWTH_TOKEN: token, GROWTH_BASE_URL: `${url}/api/v1`, GROWTH_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'growth-mcp-config-')), ...extra }
}

/** The line of `growth mcp --http`'s stderr that gives the secret made for the run. */
export const SECRET_LINE = /clients must send the header: Authorization: Bearer (mcp_[A-Za-z0-9_-]+)/

const CLI = [process.execPath, join(ROOT, 'cli/bin/growth.ts')]

export async function connect(transport: Transport, token: string, args: string[] = [], extraEnv: Record<string, string> = {}): Promise<Connected> {
  const env = await envFor(token, extraEnv)
  const client = new Client({ name: 'growth-mcp-test', version: '1.0.0' })
  if (transport === 'stdio') {
    const stdio = new StdioClientTransport({ command: CLI[0]!, args: [...CLI.slice(1), 'mcp', ...args], cwd: ROOT, env, stderr: 'pipe' })
    let stderr = ''
    stdio.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    await client.connect(stdio)
    const pid = stdio.pid
    return {
      client,
      stderr: () => stderr,
      async close() {
        const exited = pid ? waitForExit(pid) : Promise.resolve()
        await client.close()
        await exited
        return null
      },
    }
  }
  const proc = Bun.spawn([...CLI, 'mcp', '--http', '0', ...args], { cwd: ROOT, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const out = readAll(proc.stderr)
  const url = await out.waitFor(/serving MCP \(Streamable HTTP\) at (http:\/\/\S+\/mcp)/, proc)
  const secret = await out.waitFor(SECRET_LINE, proc)
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }))
  return {
    client,
    url,
    secret,
    stderr: () => out.text,
    async close() {
      await client.close()
      proc.kill('SIGTERM')
      return proc.exited
    },
  }
}

/** A stream read in the background; waitFor resolves with the first group of a pattern once it shows. */
export function readAll(stream: ReadableStream<Uint8Array>) {
  const state = { text: '', done: Promise.resolve() }
  const decoder = new TextDecoder()
  const reader = stream.getReader()
  state.done = (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) state.text += decoder.decode(r.value, { stream: true })
  })()
  return {
    get text() {
      return state.text
    },
    done: state.done,
    async waitFor(pattern: RegExp, proc: { exitCode: number | null }, ms = 20_000): Promise<string> {
      const deadline = Date.now() + ms
      for (;;) {
        const m = pattern.exec(state.text)
        if (m) return m[1] ?? m[0]
        if (proc.exitCode !== null) throw new Error(`growth mcp exited ${proc.exitCode}: ${state.text}`)
        if (Date.now() > deadline) throw new Error(`growth mcp printed no ${pattern} within ${ms} ms: ${state.text}`)
        await Bun.sleep(25)
      }
    },
  }
}

async function waitForExit(pid: number, ms = 10_000) {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    if (Date.now() > deadline) throw new Error(`growth mcp (pid ${pid}) did not exit within ${ms} ms of its stdin closing`)
    await Bun.sleep(25)
  }
}

/** A tool call's result, typed as tools/call answers it. */
export async function callTool(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { structuredContent: any }> {
  return (await c.client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent: any }
}

/** The text of a result. */
export const textOf = (r: CallToolResult) => (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n')
