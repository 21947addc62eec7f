import { readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The repository's root. */
export const ROOT = resolve(import.meta.dir, '..', '..')

/** The repository's own source files under `dir` (TypeScript and JavaScript, no declarations), by path from the root. */
export function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(ROOT, dir))) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path))
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}
