import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, sources } from '../support/source-files.ts'

/**
 * No dead exports: every name the server, the CLI or the scripts export is used by another file
 * (another module, a test or an example). A name used only in its own file is not exported; a name
 * used nowhere is not written. (The SDK's exports are its public surface: test/sdk/ covers them.)
 */

/** The exported declarations of a source, by name. */
function exportedNames(text: string): string[] {
  return [...text.matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|let|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!)
}

/** The exported names of `checked` that no other text of `all` names, with the file that exports each. */
function deadExports(all: Map<string, string>, checked: string[]): string[] {
  const dead: string[] = []
  for (const file of checked) {
    for (const name of exportedNames(all.get(file)!)) {
      const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`)
      if (![...all].some(([other, text]) => other !== file && word.test(text))) dead.push(`${file}: ${name}`)
    }
  }
  return dead
}

test('every exported name of the server, the CLI and the scripts is used by another file', () => {
  const files = ['server', 'cli', 'sdk', 'scripts', 'test', 'examples'].flatMap((d) => sources(d))
  const all = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]))
  const checked = files.filter((f) => /^(server|cli|scripts)\//.test(f))
  expect(checked.length).toBeGreaterThan(100)
  expect(deadExports(all, checked)).toEqual([])
})

test('the check finds a name exported but used only in its own file, and one used elsewhere passes', () => {
  const all = new Map([
    ['server/src/a.ts', 'export function lonely() {}\nexport const shared = 1\nlonely()'],
    ['server/src/b.ts', "import { shared } from './a.ts'\nshared"],
  ])
  expect(deadExports(all, ['server/src/a.ts'])).toEqual(['server/src/a.ts: lonely'])
})
