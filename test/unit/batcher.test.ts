import { describe, expect, test } from 'bun:test'
import { Batcher, type Settled } from '../../server/src/store/driver/batcher.ts'

/** The batching shared by the credential check and the agent gateway's decisions (store/driver/batcher.ts). */
describe('Batcher', () => {
  const ok = <R>(value: R): Settled<R> => ({ ok: true, value })

  test('what arrives while a batch of its key runs goes into the next one; other keys run beside it', async () => {
    const runs: string[][] = []
    let open: () => void = () => {}
    const batcher = new Batcher<string, string>(async (items) => {
      runs.push(items)
      if (items[0] === 'a1') await new Promise<void>((r) => (open = r))
      return items.map((i) => ok(i.toUpperCase()))
    })
    const first = batcher.add('a', 'a1')
    await Bun.sleep(0)
    const later = [batcher.add('a', 'a2'), batcher.add('a', 'a3'), batcher.add('b', 'b1')]
    await Bun.sleep(0)
    expect(runs).toEqual([['a1'], ['b1']])
    open()
    expect(await Promise.all([first, ...later])).toEqual(['A1', 'A2', 'A3', 'B1'])
    expect(runs).toEqual([['a1'], ['b1'], ['a2', 'a3']])
  })

  test('each item gets its own outcome; a run that throws answers every item of its batch with its error', async () => {
    const batcher = new Batcher<number, number>(async (items) => {
      if (items.includes(0)) throw new Error('the database went away')
      return items.map((n) => (n < 0 ? { ok: false, error: new Error(`bad ${n}`) } : ok(n * 2)))
    })
    const mixed = await Promise.allSettled([batcher.add('k', 1), batcher.add('k', -1), batcher.add('k', 3)])
    expect(mixed.map((m) => (m.status === 'fulfilled' ? m.value : String(m.reason)))).toEqual([2, 'Error: bad -1', 6])
    const failed = await Promise.allSettled([batcher.add('k', 0), batcher.add('k', 5)])
    expect(failed.map((m) => m.status === 'rejected' && String(m.reason))).toEqual(['Error: the database went away', 'Error: the database went away'])
    // The key is free again afterwards.
    expect(await batcher.add('k', 4)).toBe(8)
  })

  test('afterRun holds back the answers, not the next batch', async () => {
    const order: string[] = []
    let release: () => void = () => {}
    const batcher = new Batcher<string, string>(
      async (items) => {
        order.push(`run ${items.join(',')}`)
        return items.map((i) => ok(i))
      },
      async (outcomes) => {
        const first = outcomes[0]
        if (first?.ok && first.value === 'x') await new Promise<void>((r) => (release = r))
      },
    )
    const x = batcher.add('k', 'x').then((v) => order.push(`answered ${v}`))
    await Bun.sleep(0)
    const y = batcher.add('k', 'y').then((v) => order.push(`answered ${v}`))
    await y
    expect(order).toEqual(['run x', 'run y', 'answered y'])
    release()
    await x
    expect(order).toEqual(['run x', 'run y', 'answered y', 'answered x'])
  })
})
