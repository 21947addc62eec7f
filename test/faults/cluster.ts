import { join } from 'node:path'
import { type Answer, callAt } from '../support/http-call.ts'
import { startBanner } from '../support/server-process.ts'

/**
 * Real server processes for the fault suite: `bun server/src/main.ts` (what `npm start` runs), each
 * on its own port, all on one PostgreSQL database. Tests send them HTTP, kill them with real
 * signals, and count what reached the database through the harness's own connection.
 */

const ROOT = join(import.meta.dir, '../..')

/** Why a file of the fault suite that needs a PostgreSQL server does not run here (undefined when it does). */
export const needsPostgres = process.env.DATABASE_URL
  ? undefined
  : 'the fault suite runs server processes on one PostgreSQL database: set DATABASE_URL (CI does, on its PostgreSQL leg)'

export type ServerProcess = {
  proc: ReturnType<typeof Bun.spawn>
  /** http://127.0.0.1:<port>/api/v1 */
  base: string
  /** Everything the process printed, for a failure's message. */
  output(): string
  /** A real signal: SIGKILL (kill -9), SIGSTOP, SIGCONT, SIGTERM. */
  signal(sig: NodeJS.Signals): void
  /** SIGKILL, and wait until the process has gone. */
  kill(): Promise<void>
  /** SIGTERM (graceful), and wait until it has gone. */
  stop(): Promise<number>
}

/** Every process the suite started and that has not exited: killed when the test process exits, whatever happened. */
const children = new Set<{ kill(sig?: number | NodeJS.Signals): void }>()
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL')
})

/** Spawns a child that is killed when the test process exits. */
export function spawnOwned(cmd: string[], opts: Parameters<typeof Bun.spawn>[1]) {
  const proc = Bun.spawn(cmd, opts)
  children.add(proc)
  void proc.exited.then(() => children.delete(proc))
  return proc
}

/** Drains a child's output into `sink` (a full pipe would stall the child). */
async function drain(stream: ReadableStream<Uint8Array>, sink: { text: string }, onText?: () => void) {
  const decoder = new TextDecoder()
  const reader = stream.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    sink.text += decoder.decode(value)
    if (sink.text.length > 200_000) sink.text = sink.text.slice(-100_000)
    onText?.()
  }
}

/** Starts one server process and resolves once its banner says where it listens. */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const proc = spawnOwned([process.execPath, 'server/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WEBHOOK_WORKERS: '0', DB_POOL_MAX: '4', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const out = { text: '' }
  const err = { text: '' }
  let listening: () => void = () => {}
  const seen = new Promise<void>((res) => (listening = res))
  const check = () => {
    if (startBanner(out.text)) listening()
  }
  void drain(proc.stdout as ReadableStream<Uint8Array>, out, check)
  void drain(proc.stderr as ReadableStream<Uint8Array>, err)
  const output = () => `${out.text}\n${err.text}`
  const timeout = Bun.sleep(30_000).then(() => 'timeout' as const)
  const result = await Promise.race([seen.then(() => 'up' as const), proc.exited.then(() => 'exited' as const), timeout])
  if (result !== 'up') {
    proc.kill('SIGKILL')
    throw new Error(`server process ${result === 'exited' ? 'exited' : 'did not start within 30 s'}: ${output()}`)
  }
  const base = startBanner(out.text)!.api
  return {
    proc,
    base,
    output,
    signal: (sig) => proc.kill(sig),
    kill: async () => {
      proc.kill('SIGKILL')
      await proc.exited
    },
    stop: async () => {
      proc.kill('SIGTERM')
      return proc.exited
    },
  }
}

/** Starts `n` server processes side by side. */
export async function startCluster(n: number, env: Record<string, string> = {}): Promise<ServerProcess[]> {
  return Promise.all(Array.from({ length: n }, () => startServerProcess(env)))
}

export async function stopAll(servers: ServerProcess[]) {
  await Promise.all(
    servers.map(async (s) => {
      s.signal('SIGCONT')
      s.signal('SIGKILL')
      await s.proc.exited
    }),
  )
}

export type Reply = Answer

/**
 * One HTTP call to `base` (a server's /api/v1). The answer is held against the OpenAPI document, as
 * the harness's call() does: its status must be documented and its body in the envelope.
 */
export function send(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Reply> {
  return callAt(base, method, path, opts, `/api/v1${path}`)
}
