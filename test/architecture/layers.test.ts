import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { ROOT, sources } from '../support/source-files.ts'

/**
 * The shape of the code (docs/architecture.md): data flows one way, http -> routes -> domain ->
 * store, over a core every layer shares; the demo sits above the domain; the CLI's operator
 * commands reach the domain directly, its API commands go through the SDK; the SDK stands alone. This test reads every import of the
 * repository's own TypeScript and fails on an import that goes against the layers or a cycle
 * between files, naming them.
 */


type Layer = 'core' | 'store' | 'schemas' | 'domain' | 'demo' | 'routes' | 'http' | 'console' | 'entry' | 'cli' | 'sdk' | 'scripts'

/** What each layer may import (besides itself). */
const MAY_IMPORT: Record<Layer, Layer[]> = {
  core: [],
  store: ['core'],
  schemas: ['core'],
  domain: ['core', 'store', 'schemas'],
  demo: ['core', 'store', 'schemas', 'domain'],
  routes: ['core', 'schemas', 'domain'],
  http: ['core', 'store', 'schemas', 'domain', 'routes'],
  // The console is a front door beside http: its pages call the domain, never the store or the API's pipeline.
  console: ['core', 'schemas', 'domain'],
  entry: ['core', 'store', 'schemas', 'domain', 'demo', 'routes', 'http', 'console'],
  cli: ['core', 'store', 'schemas', 'domain', 'demo', 'entry', 'sdk'],
  sdk: [],
  scripts: ['core', 'store', 'schemas', 'domain', 'demo', 'routes', 'http', 'console', 'entry', 'cli', 'sdk'],
}

function layerOf(file: string): Layer | undefined {
  const m = /^server\/src\/(core|store|schemas|domain|demo|routes|http|console)\//.exec(file)
  if (m) return m[1] as Layer
  if (/^server\/src\/[^/]+\.ts$/.test(file) || file.startsWith('server/src/workers/')) return 'entry'
  if (file.startsWith('cli/')) return 'cli'
  if (file.startsWith('sdk/')) return 'sdk'
  if (file.startsWith('scripts/')) return 'scripts'
  return undefined
}

/** The repository files a source file imports (static, dynamic and re-exports), by path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const specs = [...text.matchAll(/(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? m[2] ?? m[3]!,
  )
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)))
}

const files = ['server/src', 'cli', 'sdk', 'scripts'].flatMap((d) => sources(d))
const graph = new Map(files.map((f) => [f, importsOf(f)]))

describe('the layers', () => {
  test('every source file is in a layer, and the test sees the whole tree', () => {
    expect(files.filter((f) => !layerOf(f))).toEqual([])
    expect(files.length).toBeGreaterThan(100)
    for (const layer of ['core', 'store', 'schemas', 'domain', 'demo', 'routes', 'http', 'console', 'entry', 'cli'] as Layer[]) {
      expect(files.some((f) => layerOf(f) === layer)).toBe(true)
    }
  })

  test('no import goes against the layers', () => {
    const wrong: string[] = []
    for (const [file, imports] of graph) {
      const from = layerOf(file)!
      for (const target of imports) {
        const to = layerOf(target)
        if (to === undefined) {
          if (!target.startsWith('package.json')) wrong.push(`${file} imports ${target}, outside every layer`)
          continue
        }
        if (to !== from && !MAY_IMPORT[from].includes(to)) wrong.push(`${file} (${from}) imports ${target} (${to})`)
      }
    }
    expect(wrong).toEqual([])
  })

  test('the CLI uses the SDK as its users do: through @growth-service/sdk, never a module of sdk/src by path', () => {
    const byPath = [...graph].flatMap(([file, imports]) => (file.startsWith('cli/') ? imports.filter((t) => t.startsWith('sdk/src/')).map((t) => `${file} imports ${t}`) : []))
    expect(byPath).toEqual([])
    expect(readFileSync(join(ROOT, 'cli/src/api/commands.ts'), 'utf8')).toContain("from '@growth-service/sdk'")
  })

  test('no cycle between files', () => {
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const stack: string[] = []
    const visit = (file: string) => {
      state.set(file, 'open')
      stack.push(file)
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '))
        else if (!state.has(next)) visit(next)
      }
      stack.pop()
      state.set(file, 'done')
    }
    for (const file of graph.keys()) if (!state.has(file)) visit(file)
    expect(cycles).toEqual([])
  })

  test('no two exported types share a name (one name, one meaning)', () => {
    const where = new Map<string, string[]>()
    for (const file of files.filter((f) => f.startsWith('server/src/') || f.startsWith('cli/'))) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const [, name] of text.matchAll(/^export (?:type|interface|class|enum) ([A-Za-z0-9_]+)/gm)) where.set(name!, [...(where.get(name!) ?? []), file])
    }
    expect([...where].filter(([, fs]) => fs.length > 1).map(([name, fs]) => `${name}: ${fs.join(', ')}`)).toEqual([])
  })

  test('the domain chooses no pool: the machinery behind a decision is built once at start and handed in', () => {
    // A domain file gets a handle (pool or transaction) and services; it does not tell one from the
    // other, nor reach for the agent gateway's batch or kept views (store/agent-gateway-recorder.ts does).
    const machinery = ['server/src/store/agent-gateway-batch.ts', 'server/src/store/agent-gateway-view-cache.ts']
    const choosing: string[] = []
    for (const file of files.filter((f) => layerOf(f) === 'domain')) {
      if (/'savepoint' in /.test(readFileSync(join(ROOT, file), 'utf8'))) choosing.push(`${file} tells a transaction from a pool`)
      for (const target of graph.get(file)!) if (machinery.includes(target)) choosing.push(`${file} imports ${target}`)
    }
    expect(choosing).toEqual([])
    // Built where the pools are made, and nowhere else.
    const builders = files.filter((f) => f.startsWith('server/src/') && /new (DecisionBatch|GatewayViewCache)\(/.test(readFileSync(join(ROOT, f), 'utf8')))
    expect(builders).toEqual(['server/src/server.ts'])
  })

  test('the checker catches what it should (an import back up, a cycle)', () => {
    // The rules above, applied to a made-up graph, so a broken checker cannot pass quietly.
    const from = layerOf('server/src/store/missions.ts')!
    expect(MAY_IMPORT[from].includes(layerOf('server/src/domain/missions.ts')!)).toBe(false)
    expect(MAY_IMPORT[layerOf('server/src/routes/missions.ts')!].includes(layerOf('server/src/store/missions.ts')!)).toBe(false)
    expect(importsOf('server/src/http/app.ts')).toContain('server/src/http/pipeline.ts')
  })
})
