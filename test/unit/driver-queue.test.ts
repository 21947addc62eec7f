// The database driver's queue, as patched by patches/postgres+3.4.9.patch (applied by `npm install`).
//
// postgres.js keeps its pool's connections (open, busy, full) and each connection's sent queries in
// a Queue that resets only when it empties. Under steady load the pool's busy queue never empties:
// it grew by one slot per query, and every move of a connection between queues ran indexOf over all
// the slots ever used. A pool of 10 under 32 callers fell from 35,000 to 7,000 queries a second in
// 48 s, in Bun and in Node alike (upstream: porsager/postgres#747, open). The patch compacts the
// queue once half of it is spent and searches only its live part. docs/performance.md has the
// figures. These tests count what remove() searches (no timing): they fail on the unpatched file.
import { describe, expect, test } from 'bun:test'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { installedPackage } from '../support/installed-package.ts'

type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null }
type QueueFactory = <T>(initial?: T[]) => Queue<T>

const require = createRequire(import.meta.url)
const root = installedPackage('postgres').dir
const builds: [string, () => Promise<QueueFactory>][] = [
  // Bun's and Node's `import 'postgres'` (the server, the CLI), Node's require, Cloudflare's workerd.
  ['src (ESM)', async () => (await import(join(root, 'src/queue.js'))).default],
  ['cjs', async () => require(join(root, 'cjs/src/queue.js'))],
  ['cf', async () => (await import(join(root, 'cf/src/queue.js'))).default],
]

/** The length of every array indexOf searches while `f` runs. */
function searchedLengths(f: () => void): number[] {
  const lengths: number[] = []
  const original = Array.prototype.indexOf
  Array.prototype.indexOf = function (this: unknown[], ...args: [unknown, number?]) {
    lengths.push(this.length - (args[1] ?? 0))
    return original.apply(this, args)
  }
  try {
    f()
  } finally {
    Array.prototype.indexOf = original
  }
  return lengths
}

describe.each(builds)("postgres.js's queue (%s)", (_name, load) => {
  test('a queue that never empties stays small: remove() searches its live part, not every slot ever used', async () => {
    const Queue = await load()
    // The pool's busy queue under load: ten connections, each taken and put back 100,000 times.
    const connections = Array.from({ length: 10 }, (_, i) => ({ id: i }))
    const busy = Queue(connections)
    for (let i = 0; i < 100_000; i++) busy.push(busy.shift()!)
    expect(busy.length).toBe(10)
    const searched = searchedLengths(() => expect(busy.remove(connections[3]!)).toBe(connections[3]!))
    expect(searched.length).toBe(1)
    // Unpatched: 100,010 slots, all but ten of them spent.
    expect(searched[0]!).toBeLessThanOrEqual(2 * 1024 + 10)
  })

  test('it is still a first-in, first-out queue through compactions, with remove() anywhere', async () => {
    const Queue = await load()
    const q = Queue<number>()
    const expected: number[] = []
    let next = 0
    // Pushes outrun shifts, then shifts outrun pushes, across many compactions; remove now and then.
    for (let step = 0; step < 50_000; step++) {
      const pushes = step % 1000 < 500 ? 2 : 0
      for (let k = 0; k < pushes; k++) expected.push(q.push(next++))
      if (step % 7 === 0 && expected.length > 3) {
        const victim = expected[Math.floor(expected.length / 2)]!
        expect(q.remove(victim)).toBe(victim)
        expected.splice(expected.indexOf(victim), 1)
        expect(q.remove(victim)).toBeNull()
      }
      if (expected.length) expect(q.shift()).toBe(expected.shift()!)
      expect(q.length).toBe(expected.length)
    }
    while (expected.length) expect(q.shift()).toBe(expected.shift()!)
    expect(q.length).toBe(0)
  })
})
