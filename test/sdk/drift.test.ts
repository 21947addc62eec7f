import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderSdkFiles } from '../../scripts/sdk-files.ts'
import { call } from '../harness.ts'

test("the SDK's committed types are what openapi-typescript makes of the live document (run npm run sdk:generate)", async () => {
  const live = await call('GET', '/api/v1/openapi.json')
  expect(live.status).toBe(200)
  const files = await renderSdkFiles(live.body)
  for (const [path, text] of Object.entries(files)) {
    const committed = readFileSync(join(import.meta.dir, '../..', path), 'utf8')
    if (committed !== text) throw new Error(`${path} is out of date with the server's OpenAPI document: run npm run sdk:generate`)
  }
})
