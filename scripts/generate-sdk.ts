/**
 * Regenerate the SDK's types from the server's own OpenAPI document:
 *   npm run sdk:generate
 * Writes sdk/openapi.json (the document) and sdk/src/schema.ts (openapi-typescript's types).
 * test/sdk/drift.test.ts fails when the committed files differ from what this would write.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderSdkFiles } from './sdk-files.ts'

const root = join(import.meta.dir, '..')
const files = await renderSdkFiles()
for (const [path, text] of Object.entries(files)) {
  writeFileSync(join(root, path), text)
  console.log(`wrote ${path}`)
}
