import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI_TIMEOUT, ROOT } from './run.ts'

/**
 * A command loads its own group of commands only (cli/src/index.ts, GROUPS): an operation's command
 * (`growth missions list`) loads none of the server's domain and store, nor PGlite, OpenTelemetry's
 * SDK, prom-client or the MCP SDK; an operator command (`growth admin ...`) none of the long-running
 * commands' OpenTelemetry SDK, prom-client or MCP SDK. What each resolved is recorded by a preloaded
 * plugin (support/seen-imports.ts) in a real `growth` process. When a command once reached the
 * server's whole domain through one import (cli/src/errors.ts of core.ts), every `growth` command took
 * 0.6 s and more to start instead of 0.15 s.
 */
async function growthSeeing(args: string[]) {
  const file = join(mkdtempSync(join(tmpdir(), 'growth-imports-')), 'seen.json')
  const proc = Bun.spawn([process.execPath, '--preload', join(import.meta.dir, 'support', 'seen-imports.ts'), 'cli/bin/growth.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, SEEN_IMPORTS_FILE: file, GROWTH_TOKEN: '', GROWTH_BASE_URL: '' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr, seen: JSON.parse(readFileSync(file, 'utf8')) as string[] }
}

/** The server's layers beyond the few small core modules the CLI words its output with. */
const SERVER_LAYERS = /server\/src\/(domain|store|routes|http|console|workers|schemas)\//
const LONG_RUNNING = /^(@opentelemetry\/sdk-|@opentelemetry\/exporter-|prom-client|@modelcontextprotocol\/)/

describe("growth's start", () => {
  test(
    "an operation's command (flags before its name too) loads no module of the server's domain or store, nor PGlite, OpenTelemetry's SDK, prom-client or the MCP SDK",
    async () => {
      for (const args of [['missions', 'list', '--help'], ['--token', 'svc_live_x', '--json', 'agent', 'authorize', '--help']]) {
        const r = await growthSeeing(args)
        expect({ args, code: r.code }).toEqual({ args, code: 0 })
        expect(r.stdout).toStartWith(`Usage: growth ${args.filter((a) => !a.startsWith('-') && !a.startsWith('svc_')).join(' ')} [options]`)
        expect(r.seen.length).toBeGreaterThan(10)
        expect(r.seen.filter((m) => SERVER_LAYERS.test(m) || LONG_RUNNING.test(m) || m.startsWith('@electric-sql/') || m.endsWith('/core.ts'))).toEqual([])
      }
    },
    CLI_TIMEOUT,
  )

  test(
    "an operator command loads the server's domain but not what only growth worker and growth mcp run with",
    async () => {
      const r = await growthSeeing(['admin', 'workspace', 'list', '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toStartWith('Usage: growth admin workspace list [options]')
      expect(r.seen.some((m) => SERVER_LAYERS.test(m))).toBe(true)
      expect(r.seen.filter((m) => LONG_RUNNING.test(m))).toEqual([])
    },
    CLI_TIMEOUT,
  )

  test(
    'a command word of no group (a typo) is answered from the whole tree: the suggestion names the command meant',
    async () => {
      const r = await growthSeeing(['misions', 'list'])
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' })
      expect(r.stderr).toBe("error: unknown command 'misions'\n(Did you mean missions?)\n(add --help for usage)\n")
      const help = await growthSeeing(['--help'])
      for (const word of ['admin', 'worker', 'login', 'missions', 'listen', 'mcp', 'webhooks']) expect(help.stdout).toContain(`\n  ${word} `)
    },
    CLI_TIMEOUT,
  )
})
