import { beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { startFaultProxy } from '../sdk/support/fault-proxy.ts'
import { CLI_TIMEOUT, ROOT } from './run.ts'

/**
 * growth contacts import FILE, black-box: a real process reading real files and sending them to the
 * test server in batches of 100; what it did is read back through the API (contact.created events).
 */
const dir = mkdtempSync(join(tmpdir(), 'growth-import-'))
let ws: Workspace
let env: Record<string, string>

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  env = { ...process.env, GROWTH_BASE_URL: `${h.url}/api/v1`, GROWTH_TOKEN: ws.live } as Record<string, string>
})

function start(args: string[]) {
  return Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'contacts', 'import', ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
}

async function growthImport(args: string[]) {
  const proc = start(args)
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

/** Every contact.created event of the workspace, through the API. */
async function createdEmails(): Promise<string[]> {
  const emails: string[] = []
  let after: string | undefined
  for (;;) {
    const r = await call('GET', `/api/v1/events?type=contact.created&limit=100${after ? `&after=${after}` : ''}`, { token: ws.live })
    emails.push(...r.body.data.map((e: any) => e.data.contact.email))
    if (r.body.data.length < 100) return emails
    after = r.body.meta.nextCursor
  }
}

test(
  'a CSV with its header in any case, tags, a quoted comma and a bad row: the bad row named by line, the rest imported, exit 1',
  async () => {
    const file = join(dir, 'mixed.csv')
    writeFileSync(file, 'Email,First Name,last_name,Tags\nann.lee@example.com,Ann,Lee,vip;autumn\n"not an address",Bad,Row,\n\nbo.ng@example.com,"Bo, Jr.",Ng,\n')
    const r = await growthImport([file, '--json'])
    expect(r.code).toBe(1)
    const summary = JSON.parse(r.stdout)
    expect(summary).toMatchObject({ rows: 3, batches: 1, replayedBatches: 0, alreadyImported: 0, created: 2, updated: 0, skipped: { doNotContact: 0, unchanged: 0 }, stoppedAt: null })
    expect(summary.refused).toEqual([{ line: 3, message: 'email is not a valid email' }])
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { message: '1 of 3 rows refused (line 3); the rest was imported' } })
    expect((await createdEmails()).sort()).toEqual(['ann.lee@example.com', 'bo.ng@example.com'])
    // The same file again: answered from the first run's key, nothing done twice, and it says so
    // (not "created 2": nothing was created by this run).
    const again = await growthImport([file])
    expect(again.stdout).toBe(`${file} was already imported: 3 rows in 1 request, answered again from the API's memory of an earlier run; nothing was done twice.\n  this run: created 0, updated 0, skipped 0 (0 do not contact, 0 unchanged), refused 1\n`)
    const againJson = JSON.parse((await growthImport([file, '--json'])).stdout)
    expect(againJson).toMatchObject({ rows: 3, replayedBatches: 1, alreadyImported: 2, created: 0, updated: 0 })
    expect(again.stderr).toBe('line 3: email is not a valid email\nerror: 1 of 3 rows refused (line 3); the rest was imported\n')
    expect((await createdEmails()).length).toBe(2)
  },
  CLI_TIMEOUT,
)

test(
  'killed half way through 2,000 rows and run again: every contact created once, and the counts add up',
  async () => {
    const file = join(dir, 'big.csv')
    const rows = Array.from({ length: 2_000 }, (_, i) => `person${i}@bulk.example.com,Person ${i}`)
    writeFileSync(file, `email,name\n${rows.join('\n')}\n`)
    const before = (await createdEmails()).length
    // Through a proxy that holds each answer back a little, so that the kill lands half way
    // however fast this machine is: it is killed once 300 contacts are in, long before 2,000.
    const { url } = await getHarness()
    const proxy = await startFaultProxy(url)
    proxy.script(Array.from({ length: 20 }, () => ({ kind: 'delay' as const, ms: 250 })))
    const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'contacts', 'import', file], {
      cwd: ROOT,
      env: { ...env, GROWTH_BASE_URL: `${proxy.url}/api/v1` },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    // Kill it once some batches have been done, before all are.
    for (let i = 0; i < 600; i++) {
      const done = (await createdEmails()).length - before
      if (done >= 300) break
      await Bun.sleep(25)
    }
    proc.kill('SIGKILL')
    await proc.exited
    await proxy.stop()
    const part = (await createdEmails()).length - before
    expect(part).toBeGreaterThanOrEqual(300)
    expect(part).toBeLessThan(2_000)
    const rerun = await growthImport([file, '--json'])
    expect(rerun.code).toBe(0)
    const summary = JSON.parse(rerun.stdout)
    expect(summary).toMatchObject({ rows: 2_000, batches: 20, updated: 0, refused: [] })
    // What the killed run did is already imported; the rest is created by this one.
    expect(summary.replayedBatches).toBeGreaterThanOrEqual(Math.floor(part / 100))
    expect(summary.alreadyImported).toBe(summary.replayedBatches * 100)
    expect(summary.created + summary.alreadyImported).toBe(2_000)
    const emails = (await createdEmails()).filter((e) => e.endsWith('@bulk.example.com'))
    expect(emails.length).toBe(2_000)
    expect(new Set(emails).size).toBe(2_000)
  },
  90_000,
)

test(
  'a malformed line while the batch before it is out: that batch is answered, and the rows from it up to the bad line are sent, before the import stops',
  async () => {
    // The CLI reads the next batch while one is out. Line 152 cannot be read while the first 100 rows
    // are held back by the proxy: they are done by the time it exits saying nothing after that line was sent.
    const file = join(dir, 'late-break.csv')
    const good = Array.from({ length: 150 }, (_, i) => `late${i}@break.example.com,Late ${i}`)
    writeFileSync(file, `email,name\n${good.join('\n')}\n"unclosed@break.example.com,Bad\nlate.after@break.example.com,After\n`)
    const { url } = await getHarness()
    const proxy = await startFaultProxy(url)
    proxy.script([{ kind: 'delay', ms: 700 }])
    try {
      const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'contacts', 'import', file], {
        cwd: ROOT,
        env: { ...env, GROWTH_BASE_URL: `${proxy.url}/api/v1` },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
      expect(code).toBe(1)
      expect(stderr).toContain('late-break.csv line 152: a quote opened on this line is never closed. The import stopped there: the 150 rows before it were imported')
      const done = (await createdEmails()).filter((e) => e.endsWith('@break.example.com'))
      expect(done.length).toBe(150)
    } finally {
      await proxy.stop()
    }
  },
  CLI_TIMEOUT,
)

test(
  'a malformed CSV line is named by number; an unknown column is refused before anything is sent; JSON lines name their bad lines',
  async () => {
    const broken = join(dir, 'broken.csv')
    writeFileSync(broken, 'email,name\nok.one@example.com,One\n"unclosed@example.com,Two\nok.three@example.com,Three\n')
    const b = await growthImport([broken, '--json'])
    expect(b.code).toBe(1)
    // The line where the unclosed quote opens (csv-parse names the end of the file), and the good row before it imported.
    expect(JSON.parse(b.stdout)).toMatchObject({ rows: 1, created: 1, stoppedAt: { line: 3, message: 'a quote opened on this line is never closed' } })
    expect(JSON.parse(b.stderr).error.message).toBe(
      `${broken} line 3: a quote opened on this line is never closed. The import stopped there: the 1 row before it was imported (the summary above), nothing from line 3 on was sent. Fix that line and run the same command again.`,
    )
    expect(await createdEmails()).toContain('ok.one@example.com')
    expect(await createdEmails()).not.toContain('ok.three@example.com')
    const unknown = join(dir, 'unknown.csv')
    writeFileSync(unknown, 'email,colour\nx@example.com,red\n')
    const u = await growthImport([unknown])
    expect(u).toMatchObject({ code: 1, stdout: '' })
    expect(u.stderr).toBe(`error: ${unknown} line 1: "colour" is not a contact field; the columns are email, name, firstName, lastName, company, phone, tags (any case, spaces or underscores)\n`)
    // A file of one line is checked as a header too: not 'Imported: 0 rows', exit 0.
    const oneLine = join(dir, 'hostname')
    writeFileSync(oneLine, 'myhost\n')
    const h = await growthImport([oneLine])
    expect(h).toMatchObject({ code: 1, stdout: '' })
    expect(h.stderr).toStartWith(`error: ${oneLine} line 1: "myhost" is not a contact field;`)
    const lines = join(dir, 'people.jsonl')
    writeFileSync(lines, '{"email":"jl.one@example.com","name":"JL One"}\nnot json\n["an","array"]\n{"email":"jl.two@example.com","tags":["a"]}\n')
    const j = await growthImport([lines, '--json'])
    expect(j.code).toBe(1)
    const summary = JSON.parse(j.stdout)
    expect(summary).toMatchObject({ rows: 4, created: 2 })
    expect(summary.refused.map((r: any) => r.line)).toEqual([2, 3])
    const missing = await growthImport([join(dir, 'nothing.csv')])
    expect(missing).toMatchObject({ code: 1, stdout: '' })
    expect(missing.stderr).toContain('cannot read')
    // A directory is named as one (it read as EISDIR, exit 2, without the path).
    const folder = await growthImport([dir])
    expect(folder).toMatchObject({ code: 1, stdout: '' })
    expect(folder.stderr).toBe(`error: cannot read ${dir}: it is a directory; give the CSV or JSON-lines file to import\n`)
  },
  CLI_TIMEOUT,
)

const script = Bun.which('script')
test.skipIf(!script)(
  'on a terminal it shows a progress bar (cli-progress) on stderr; without one, none',
  async () => {
    if (!script) return console.warn('skipped: util-linux script (to give the CLI a terminal) is not installed')
    const file = join(dir, 'tty.csv')
    writeFileSync(file, `email,name\n${Array.from({ length: 250 }, (_, i) => `tty${i}@example.com,T ${i}`).join('\n')}\n`)
    const command = `${process.execPath} cli/bin/growth.ts contacts import ${file}`
    const proc = Bun.spawn([script, '-qec', command, '/dev/null'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(code).toBe(0)
    expect(out).toMatch(/importing =+-* +\d+% \| \d+ rows/)
    expect(out).toContain('importing ======================================== 100% | 250 rows')
    expect(out).toContain('Imported')
    const plain = await growthImport([file])
    expect(plain.stderr).toBe('')
    expect(plain.stdout).toContain(`${file} was already imported: 250 rows in 3 requests`)
  },
  CLI_TIMEOUT,
)

test(
  'two bad rows of one batch: each named with its own refusal, not the other one',
  async () => {
    const file = join(dir, 'two-bad.csv')
    writeFileSync(file, 'email,name\nkim.two@example.com,Kim\nnot-an-email,Bad\nlee.two@example.com,Lee\n,No Address\n')
    const r = await growthImport([file, '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).refused).toEqual([
      { line: 3, message: 'email is not a valid email' },
      { line: 5, message: 'email is required' },
    ])
  },
  CLI_TIMEOUT,
)

test(
  'the keys depend on --list-id: the same file into a list after it was imported without one is a new import (a list not found is 404, not a reused key)',
  async () => {
    const file = join(dir, 'into-a-list.csv')
    writeFileSync(file, 'email,name\nlisted.one@example.com,One\nlisted.two@example.com,Two\n')
    expect((await growthImport([file])).code).toBe(0)
    const nope = await growthImport([file, '--list-id', 'lst_nope'])
    expect(nope.code).toBe(1)
    expect(nope.stderr).toContain('(404 not_found')
    expect(nope.stderr).not.toContain('Idempotency-Key')
    const { sql } = await getHarness()
    await sql`INSERT INTO lists (workspace_id, id, name) VALUES (${ws.id}, 'lst_cli_import', 'Imported')`
    const listed = await growthImport([file, '--list-id', 'lst_cli_import', '--json'])
    expect(listed.code).toBe(0)
    expect(JSON.parse(listed.stdout)).toMatchObject({ rows: 2, replayedBatches: 0, alreadyImported: 0, created: 0 })
    const members = await sql`SELECT count(*)::int AS n FROM list_members WHERE workspace_id = ${ws.id} AND list_id = 'lst_cli_import'`
    expect(members[0]!.n).toBe(2)
    // Each import resumes on its own keys.
    expect(JSON.parse((await growthImport([file, '--list-id', 'lst_cli_import', '--json'])).stdout)).toMatchObject({ replayedBatches: 1, alreadyImported: 2 })
    expect(JSON.parse((await growthImport([file, '--json'])).stdout)).toMatchObject({ replayedBatches: 1, alreadyImported: 2 })
  },
  CLI_TIMEOUT,
)
