import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The console's static files, served by this server under /console/assets/: its one stylesheet,
 * htmx, console.js (live updates and times in the person's zone; progressive enhancement) and the
 * passkeys' scripts. Each is read once, when first asked for, and named in pages with a content
 * hash so a new version is fetched at once.
 */
const ASSETS_PATH = '/console/assets'

const sources: Record<string, { file: () => string; type: string }> = {
  'console.css': { file: () => fileURLToPath(new URL('./assets/console.css', import.meta.url)), type: 'text/css; charset=utf-8' },
  'console.js': { file: () => fileURLToPath(new URL('./assets/console.js', import.meta.url)), type: 'text/javascript; charset=utf-8' },
  'htmx.min.js': { file: () => fileURLToPath(import.meta.resolve('htmx.org/dist/htmx.min.js')), type: 'text/javascript; charset=utf-8' },
  // Passkeys: the WebAuthn helpers of @simplewebauthn/browser (its browser bundle), and the console's own few lines.
  'webauthn.min.js': { file: () => fileURLToPath(new URL('../dist/bundle/index.umd.min.js', import.meta.resolve('@simplewebauthn/browser'))), type: 'text/javascript; charset=utf-8' },
  'passkeys.js': { file: () => fileURLToPath(new URL('./assets/passkeys.js', import.meta.url)), type: 'text/javascript; charset=utf-8' },
}

type Asset = { body: Uint8Array<ArrayBuffer>; type: string; version: string }
const loaded = new Map<string, Asset>()

/** A static file by name, or undefined when the console has none by that name. */
export function consoleAsset(name: string): Asset | undefined {
  if (!Object.hasOwn(sources, name)) return undefined
  let found = loaded.get(name)
  if (!found) {
    const body = new Uint8Array(readFileSync(sources[name]!.file()))
    found = { body, type: sources[name]!.type, version: createHash('sha256').update(body).digest('hex').slice(0, 12) }
    loaded.set(name, found)
  }
  return found
}

/** The URL of a static file, with its version. */
export const assetUrl = (name: 'console.css' | 'console.js' | 'htmx.min.js' | 'webauthn.min.js' | 'passkeys.js') => `${ASSETS_PATH}/${name}?v=${consoleAsset(name)!.version}`
