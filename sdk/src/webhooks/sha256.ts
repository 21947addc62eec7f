/**
 * HMAC-SHA256 in plain JavaScript (FIPS 180-4, RFC 2104), for runtimes that offer neither node:crypto
 * nor a synchronous Web Crypto: `Webhooks.verify` uses it there. Messages are fed in parts, so
 * `<t>.` and the body are hashed without joining them into one copy.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

/** A running SHA-256: `update` any number of times, then `digest` once. */
export class Sha256 {
  private readonly h = new Int32Array(INITIAL)
  private readonly w = new Int32Array(64)
  private readonly block = new Uint8Array(64)
  private used = 0 // bytes waiting in `block`
  private length = 0 // bytes hashed in all

  update(data: Uint8Array): this {
    let i = 0
    const n = data.length
    this.length += n
    if (this.used > 0) {
      const take = Math.min(64 - this.used, n)
      this.block.set(data.subarray(0, take), this.used)
      this.used += take
      i = take
      if (this.used < 64) return this
      this.compress(this.block, 0)
      this.used = 0
    }
    for (; i + 64 <= n; i += 64) this.compress(data, i)
    if (i < n) {
      this.block.set(data.subarray(i), 0)
      this.used = n - i
    }
    return this
  }

  digest(): Uint8Array {
    const bits = this.length * 8
    const block = this.block
    block[this.used++] = 0x80
    if (this.used > 56) {
      block.fill(0, this.used)
      this.compress(block, 0)
      this.used = 0
    }
    block.fill(0, this.used, 56)
    const high = Math.floor(bits / 0x100000000)
    for (let i = 0; i < 4; i++) {
      block[56 + i] = high >>> (24 - 8 * i)
      block[60 + i] = bits >>> (24 - 8 * i)
    }
    this.compress(block, 0)
    const out = new Uint8Array(32)
    for (let i = 0; i < 8; i++) {
      const v = this.h[i]!
      out[4 * i] = v >>> 24
      out[4 * i + 1] = v >>> 16
      out[4 * i + 2] = v >>> 8
      out[4 * i + 3] = v
    }
    return out
  }

  private compress(p: Uint8Array, at: number) {
    const w = this.w
    const h = this.h
    for (let i = 0; i < 16; i++, at += 4) w[i] = (p[at]! << 24) | (p[at + 1]! << 16) | (p[at + 2]! << 8) | p[at + 3]!
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!
      const b = w[i - 2]!
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3)
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10)
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0
    }
    let a = h[0]!
    let b = h[1]!
    let c = h[2]!
    let d = h[3]!
    let e = h[4]!
    let f = h[5]!
    let g = h[6]!
    let hh = h[7]!
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))
      const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0
      hh = g
      g = f
      f = e
      e = (d + t1) | 0
      d = c
      c = b
      b = a
      a = (t1 + t2) | 0
    }
    h[0] = (h[0]! + a) | 0
    h[1] = (h[1]! + b) | 0
    h[2] = (h[2]! + c) | 0
    h[3] = (h[3]! + d) | 0
    h[4] = (h[4]! + e) | 0
    h[5] = (h[5]! + f) | 0
    h[6] = (h[6]! + g) | 0
    h[7] = (h[7]! + hh) | 0
  }
}

/** HMAC-SHA256 of the concatenation of `parts`, keyed with `key`. */
export function hmacSha256(key: Uint8Array, parts: readonly Uint8Array[]): Uint8Array {
  const block = new Uint8Array(64)
  block.set(key.length > 64 ? new Sha256().update(key).digest() : key)
  const pad = new Uint8Array(64)
  for (let i = 0; i < 64; i++) pad[i] = block[i]! ^ 0x36
  const inner = new Sha256().update(pad)
  for (const part of parts) inner.update(part)
  const innerDigest = inner.digest()
  for (let i = 0; i < 64; i++) pad[i] = block[i]! ^ 0x5c
  return new Sha256().update(pad).update(innerDigest).digest()
}
