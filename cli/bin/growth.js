#!/usr/bin/env node
/**
 * The `growth` command as npm installs it (npm link, npm install -g, npx): a small Node.js launcher
 * that runs the CLI with the Bun binary npm installed as a dependency (the `bun` package), so it
 * works on a machine with only Node.js and npm. It prints nothing of its own, passes the arguments,
 * the terminal and the exit code through, and hands Ctrl-C and SIGTERM on to the CLI.
 */
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const bun = join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe')
const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'index.ts')

const child = spawn(bun, [entry, ...process.argv.slice(2)], { stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
child.on('error', (err) => {
  process.stderr.write(`error: could not start Bun (${bun}): ${err.message}. Run npm install in ${join(dirname(entry), '..', '..')}.\n`)
  process.exit(2)
})
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 2)))
