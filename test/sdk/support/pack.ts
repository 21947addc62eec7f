import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The SDK as a user gets it: `npm pack` in sdk/ (its prepack builds dist/), then `npm install` of
 * that tarball into an empty project. Done once per test process and shared by every test file
 * (bun runs them in one process); the tests then run scripts in that project under Node.js, Bun
 * and Deno, the way a user's own code would import '@growth-service/sdk'.
 */
export type PackedSdk = {
  /** The empty project the tarball was installed into: scripts written here import the package. */
  project: string
  tarball: string
  /** What `npm pack --json` reported: packed and unpacked bytes, and every file. */
  packed: { size: number; unpackedSize: number; files: { path: string; size: number }[] }
}

export const ROOT = join(import.meta.dir, '..', '..', '..')
export const SDK_DIR = join(ROOT, 'sdk')
const BIN = join(ROOT, 'node_modules', '.bin')

/** Packing builds with tsc and installing copies files: allow for a slow machine. */
export const PACK_TIMEOUT = 120_000

let packed: Promise<PackedSdk> | undefined

export function packedSdk(): Promise<PackedSdk> {
  packed ??= pack()
  return packed
}

async function run(cmd: string[], cwd: string): Promise<string> {
  const proc = Bun.spawn(cmd, { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`${cmd.join(' ')} (in ${cwd}) exited ${code}:\n${err}\n${out}`)
  return out
}

async function pack(): Promise<PackedSdk> {
  const work = mkdtempSync(join(tmpdir(), 'growth-sdk-pack-'))
  // The tarball and the project go when the test process ends.
  process.once('exit', () => rmSync(work, { recursive: true, force: true }))
  const out = await run(['npm', 'pack', '--json', '--pack-destination', work], SDK_DIR)
  // npm prints the prepack script's output before the JSON; the JSON is the last top-level array.
  const report = JSON.parse(out.slice(out.lastIndexOf('\n[') + 1))[0] as PackedSdk['packed'] & { filename: string }
  const tarball = join(work, report.filename)
  const project = join(work, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }, null, 2))
  // The package has no dependencies, so nothing is fetched from a registry.
  await run(['npm', 'install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], project)
  return { project, tarball, packed: { size: report.size, unpackedSize: report.unpackedSize, files: report.files } }
}

export type Runtime = 'node' | 'bun' | 'deno'
export const RUNTIMES: Runtime[] = ['node', 'bun', 'deno']

/** The command that runs a plain ESM script under a runtime, the way a user would start it. */
export function commandFor(runtime: Runtime, script: string): string[] {
  if (runtime === 'node') return ['node', script]
  if (runtime === 'bun') return [process.execPath, script]
  // Deno resolves the package from the project's node_modules (its package.json makes that the default).
  return [join(BIN, 'deno'), 'run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', '--no-prompt', script]
}

export type ScriptRun = { code: number; stdout: string; stderr: string }

/** Runs a script file that lives in the packed project under one runtime. */
export async function runScript(runtime: Runtime, script: string, env: Record<string, string> = {}, cwd?: string): Promise<ScriptRun> {
  const { project } = await packedSdk()
  const proc = Bun.spawn(commandFor(runtime, script), {
    cwd: cwd ?? project,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...env },
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

/** Writes a script into the packed project and returns its path. */
export async function scriptInProject(name: string, source: string): Promise<string> {
  const { project } = await packedSdk()
  const path = join(project, name)
  writeFileSync(path, source)
  return path
}
