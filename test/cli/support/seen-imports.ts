// Preloaded into a `growth` process (bun --preload) by test/cli/startup.test.ts: records every module
// the process resolves, and writes the list to SEEN_IMPORTS_FILE when it exits.
import { writeFileSync } from 'node:fs'
import { plugin } from 'bun'

const seen = new Set<string>()
plugin({
  name: 'seen-imports',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      seen.add(args.path)
      return undefined
    })
  },
})
process.on('exit', () => writeFileSync(process.env.SEEN_IMPORTS_FILE!, JSON.stringify([...seen])))
