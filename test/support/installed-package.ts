import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, sep } from 'node:path'

/**
 * The folder and version of an installed package, found from the entry it resolves to (a package's
 * `exports` may name no file inside it, so `<name>/package.json` cannot always be resolved).
 */
export function installedPackage(name: string): { dir: string; version: string } {
  const entry = createRequire(import.meta.url).resolve(name)
  const marker = `${sep}node_modules${sep}${name}${sep}`
  const at = entry.lastIndexOf(marker)
  if (at < 0) throw new Error(`${name} resolves to ${entry}, outside node_modules/${name}`)
  const dir = entry.slice(0, at + marker.length - 1)
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }
  return { dir, version }
}
