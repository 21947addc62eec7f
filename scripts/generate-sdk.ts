/**
 * Regenerate the SDK's types from the server's own OpenAPI document:
 *   npm run sdk:generate
 * Writes sdk/openapi.json (the document), sdk/src/schema.ts (openapi-typescript's types) and
 * sdk/src/generated/ (the table of operations, the client's method signatures, named models).
 * test/sdk/drift.test.ts fails when the committed files differ from what this would write.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { renderSdkFiles } from './sdk-files.ts'

const root = join(import.meta.dir, '..')
const files = await renderSdkFiles()
for (const [path, text] of Object.entries(files)) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
  console.log(`wrote ${path}`)
}
