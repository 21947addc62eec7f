/**
 * The demo's deterministic randomness: one generator from a fixed seed, drawn from in a fixed order
 * by the steps of the seed, so the demo has the same shape each run (only ids differ).
 */

/** A small, fast 32-bit generator (mulberry32): plenty for demo data, the same on every runtime. */
function mulberry32(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export class Rng {
  private next: () => number
  constructor(seed: number) {
    this.next = mulberry32(seed)
  }
  float(min = 0, max = 1) {
    return min + (max - min) * this.next()
  }
  int(min: number, max: number) {
    return Math.floor(this.float(min, max + 1))
  }
  chance(p: number) {
    return this.next() < p
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]
  }
  weighted<T>(xs: readonly (readonly [T, number])[]): T {
    let r = this.float(0, xs.reduce((s, [, w]) => s + w, 0))
    for (const [x, w] of xs) if ((r -= w) < 0) return x
    return xs[xs.length - 1][0]
  }
  round(x: number, dp = 1) {
    const f = 10 ** dp
    return Math.round(x * f) / f
  }
}

/** `n` random decimal digits (phone numbers). */
export const digits = (r: Rng, n: number) => Array.from({ length: n }, () => r.int(0, 9)).join('')
