/**
 * A request body read up to a bound, whether or not it declared its length: a body sent in chunks
 * (no Content-Length) is read only until it passes `maxBytes`, then the rest is not waited for. The
 * one way the API's JSON bodies and the console's forms are read, so no front door holds a body of
 * whatever size a sender likes in memory.
 */
export async function readCappedBytes(request: Request, maxBytes: number): Promise<Uint8Array | { tooLarge: true }> {
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      return { tooLarge: true }
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
