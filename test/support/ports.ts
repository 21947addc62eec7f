import { createServer } from 'node:net'

/**
 * Ports on 127.0.0.1 that were free a moment ago, for a process the test starts itself (a private
 * PostgreSQL, PgBouncer, a server): `n` of them, all different (each is held until all are found).
 * Another process may still take one before it is bound: a caller whose start fails on its port
 * should ask again.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const s = createServer()
      s.once('error', reject)
      s.listen(0, '127.0.0.1', () => resolve(s))
    })),
  )
  const ports = servers.map((s) => (s.address() as { port: number }).port)
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))))
  return ports
}

/** One port on 127.0.0.1 that was free a moment ago (see freePorts). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1)
  return port!
}
