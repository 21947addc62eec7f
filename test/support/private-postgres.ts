import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './ports.ts'

/**
 * A PostgreSQL instance of a test's own (initdb in a temporary directory, on a free port), so that
 * stopping it touches nothing else. Run as the current user, or as `postgres` when that is root
 * (initdb refuses root). Needs PostgreSQL's server binaries (Debian: postgresql-15).
 */
export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'

/** Why a private instance cannot be made here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (!existsSync(join(PG_BIN, 'initdb'))) return `${PG_BIN}/initdb is missing (install postgresql-15, or set PG_BIN)`
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to run initdb as'
  return undefined
}

export type PrivatePostgres = { url: string; port: number; start(): Promise<void>; stop(): Promise<void>; destroy(): Promise<void> }


export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const root = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'growth-pg-'))
  if (root) {
    const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString())
    const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString())
    chownSync(dir, uid, gid)
  }
  // Not spawnSync: the test's own requests keep running (and being timed) while the database stops and starts.
  const run = async (bin: string, args: string[]) => {
    const cmd = root ? ['runuser', '-u', 'postgres', '--', join(PG_BIN, bin), ...args] : [join(PG_BIN, bin), ...args]
    const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    if (code !== 0) throw new Error(`${bin} ${args.join(' ')} failed: ${out} ${err}`)
  }
  const data = join(dir, 'data')
  const port = await freePort()
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'])
  // fsync off: only a machine crash could lose what it skips; the tests stop the server cleanly.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start'])
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop'])
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      await stop().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
