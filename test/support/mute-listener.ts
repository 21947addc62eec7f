import { type AddressInfo, createServer } from 'node:net'

/**
 * A TCP listener on 127.0.0.1 that accepts each connection and closes it without a byte: what a
 * proxy with nothing behind it looks like to a database client. `accepted` counts the connections.
 */
export async function startMuteListener(): Promise<{ port: number; accepted(): number; close(): void }> {
  let accepted = 0
  const server = createServer((socket) => {
    accepted++
    socket.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port, accepted: () => accepted, close: () => server.close() }
}
