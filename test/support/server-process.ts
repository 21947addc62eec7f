import { join } from 'node:path'

/** Server processes for tests that need a real process: `bun server/src/main.ts`, what npm start runs. */
export const ROOT = join(import.meta.dir, '../..')

export type ServerProcess = { proc: ReturnType<typeof Bun.spawn>; out: string; base: string; stdout: () => string; stderr: () => string }

/** How a server process is started: `umask` (e.g. '000') is set in a shell that then becomes the server. */
export type SpawnOptions = { umask?: string }

function spawnServer(env: Record<string, string | undefined>, opts: SpawnOptions = {}) {
  const cmd = opts.umask ? ['sh', '-c', `umask ${opts.umask} && exec "$0" server/src/main.ts`, process.execPath] : [process.execPath, 'server/src/main.ts']
  return Bun.spawn(cmd, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

/** Collects a stream's text as it arrives. */
export function collect(stream: ReadableStream<Uint8Array>): () => string {
  let text = ''
  void (async () => {
    const decoder = new TextDecoder()
    const reader = stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  })().catch(() => {})
  return () => text
}

/** What a server's start banner says, read from its stdout once printed whole: text on a terminal (LOG_FORMAT=pretty), else a JSON line. */
export type StartBanner = { api: string; reference: string; metrics?: string; traces?: string }

/** The banner in `stdout`, or undefined while it is not printed yet (server/src/start-banner.ts). */
export function startBanner(stdout: string): StartBanner | undefined {
  for (const line of stdout.split('\n').slice(0, -1)) {
    if (!line.startsWith('{') || !line.includes('"Growth Automation Service listening on ')) continue
    const { api, reference, metrics, traces } = JSON.parse(line)
    return { api, reference, metrics, traces }
  }
  const text = /listening on (\S+)\n(?:  .*\n)*?  reference: (\S+)\n((?:  .*\n)*)/.exec(stdout)
  if (!text) return undefined
  const rest = text[3]!
  return { api: text[1]!, reference: text[2]!, metrics: /  metrics: (\S+)/.exec(rest)?.[1], traces: /  traces: (.+)/.exec(rest)?.[1] }
}

/** Starts a server and waits for its banner (the line naming its base URL). */
export async function startServerProcess(env: Record<string, string | undefined>, timeoutMs = 90_000, opts: SpawnOptions = {}): Promise<ServerProcess> {
  const proc = spawnServer(env, opts)
  const stdout = collect(proc.stdout as ReadableStream<Uint8Array>)
  const stderr = collect(proc.stderr as ReadableStream<Uint8Array>)
  const deadline = Date.now() + timeoutMs
  while (!startBanner(stdout())) {
    // Ended by a signal, a process has no exit code (signalCode says which): either way it will not start.
    if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL')
      throw new Error(`server did not start (${proc.signalCode ? `killed by ${proc.signalCode}` : `exit ${proc.exitCode}`}): ${stdout()} ${stderr()}`)
    }
    await Bun.sleep(50)
  }
  const base = startBanner(stdout())!.api
  return { proc, out: stdout(), base, stdout, stderr }
}

/** Runs a server that is expected to stop by itself; its exit code and what it printed. */
export async function runToExit(
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  opts: SpawnOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnServer(env, opts)
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), new Response(proc.stderr as ReadableStream).text(), proc.exited])
  clearTimeout(timer)
  return { code, stdout, stderr }
}
