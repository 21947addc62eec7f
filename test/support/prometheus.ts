import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Prometheus for the tests: promtool (Debian's `prometheus` package; .ci/run installs it) and a
 * reader of the text exposition. Tests that need promtool skip, saying so, where it is missing.
 */
export const promtool = Bun.which('promtool')
if (!promtool) console.warn('promtool not found: the checks by promtool are skipped (apt-get install prometheus; .ci/run installs it)')

/** Runs promtool with `args` (and `stdin`); its exit code and what it printed. */
export async function runPromtool(args: string[], stdin?: string): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn([promtool!, ...args], { stdin: stdin === undefined ? 'ignore' : new Blob([stdin]), stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, out: out + err }
}

/** A scrape as the sample lines' values, by `name{labels}` exactly as exposed. */
export type Samples = Map<string, number>

export async function scrape(url: string): Promise<{ text: string; samples: Samples; contentType: string }> {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`scrape of ${url}: ${res.status} ${await res.text()}`)
  const text = await res.text()
  const samples: Samples = new Map()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    samples.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return { text, samples, contentType: res.headers.get('content-type') ?? '' }
}

/** A sample's value, 0 when absent (a labelled counter appears with its first increment). */
export function value(samples: Samples, name: string, labels: Record<string, string | number> = {}): number {
  for (const [key, v] of samples) {
    const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key)!
    if (m[1] !== name) continue
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]))
    if (Object.entries(labels).every(([k, want]) => have[k] === String(want)) && Object.keys(have).length === Object.keys(labels).length) return v
  }
  return 0
}

/** A scratch directory with `files` written in it (rules and their tests for promtool). */
export function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'promtool-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}
