import { existsSync, mkdtempSync, chmodSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnOwned } from './cluster.ts'
import { freePort } from '../support/ports.ts'

/**
 * A PgBouncer of the test's own, in transaction pooling mode, in front of the PostgreSQL server at
 * DATABASE_URL: its configuration in a temporary directory, on a free port, trusting local
 * connections. Debian's package (`apt-get install pgbouncer`, which .ci/run does) puts it in
 * /usr/sbin, outside a user's PATH.
 */

export function findPgBouncer(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/usr/bin']) {
    const path = join(dir, 'pgbouncer')
    if (dir && existsSync(path)) return path
  }
  return undefined
}


export type PgBouncer = {
  /** DATABASE_URL through PgBouncer, with prepare=false (no named prepared statements: see docs/fault-suite.md). */
  url: string
  /** Which backend connections PgBouncer has (SHOW POOLS), for a test's figures. */
  log(): string
  stop(): Promise<void>
}

export async function startPgBouncer(databaseUrl: string): Promise<PgBouncer> {
  const binary = findPgBouncer()
  if (!binary) throw new Error('pgbouncer is not installed')
  const target = new URL(databaseUrl)
  const user = decodeURIComponent(target.username || 'postgres')
  const dir = mkdtempSync(join(tmpdir(), 'growth-pgbouncer-'))
  // PgBouncer will not run as root: it is started as an unprivileged user, who must reach its directory.
  chmodSync(dir, 0o777)
  const port = await freePort()
  const ini = [
    '[databases]',
    `* = host=${target.hostname} port=${target.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    `unix_socket_dir = ${dir}`,
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    'max_client_conn = 1000',
    'default_pool_size = 20',
    // postgres.js sends these as startup parameters; PgBouncer 1.18 refuses a connection that
    // carries one it does not know, unless told to ignore it (see docs/fault-suite.md).
    'ignore_startup_parameters = extra_float_digits,synchronous_commit,statement_timeout,lock_timeout,idle_in_transaction_session_timeout',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n')
  writeFileSync(join(dir, 'pgbouncer.ini'), ini)
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`)
  for (const f of ['pgbouncer.ini', 'userlist.txt']) chmodSync(join(dir, f), 0o644)
  const asRoot = process.getuid?.() === 0
  const proc = spawnOwned([binary, ...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], { stdout: 'pipe', stderr: 'pipe' })
  const log = () => (existsSync(join(dir, 'pgbouncer.log')) ? readFileSync(join(dir, 'pgbouncer.log'), 'utf8') : '')
  // Ready when it accepts a connection.
  for (let i = 0; ; i++) {
    const up = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {}, error() {}, close() {} } }).then(
      (s) => (s.end(), true),
      () => false,
    )
    if (up) break
    if (proc.exitCode !== null || i > 100) {
      proc.kill('SIGKILL')
      throw new Error(`pgbouncer did not start: ${await new Response(proc.stderr as ReadableStream).text()} ${log()}`)
    }
    await Bun.sleep(50)
  }
  const via = new URL(databaseUrl)
  via.hostname = '127.0.0.1'
  via.port = String(port)
  via.searchParams.set('prepare', 'false')
  return {
    url: via.toString(),
    log,
    stop: async () => {
      proc.kill('SIGTERM')
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(3000).then(() => false)])
      if (!exited) {
        proc.kill('SIGKILL')
        await proc.exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
