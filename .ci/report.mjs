// Prints, at the very end of a CI run, where its time went and what failed in each leg: the slowest
// test files of each JUnit report; every failing test with the first lines of its message; and, for a
// leg that exited non-zero with no failing test in its report (an error between tests, a file that
// did not load, the runner itself), the lines of its output that say so. CI's record keeps only the
// end of the run's output; without this, a failure in the first leg scrolled out of it and could
// not be named.
//
//   node .ci/report.mjs <leg name> <report.xml> <exit code> <output log> [<leg name> ...]
import { existsSync, readFileSync } from 'node:fs'

const MESSAGE_LINES = 25
const unescape = (s) =>
  s.replace(/&#10;/g, '\n').replace(/&#13;/g, '').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&')

const args = process.argv.slice(2)
const SLOWEST = 8
for (let i = 0; i < args.length; i += 4) {
  const [leg, report] = args.slice(i, i + 2)
  if (!existsSync(report)) continue
  const files = [...readFileSync(report, 'utf8').matchAll(/^  <testsuite name="([^"]+)"[^>]*\btime="([\d.]+)"/gm)].map((m) => ({ file: m[1], s: Number(m[2]) }))
  const total = files.reduce((sum, f) => sum + f.s, 0)
  files.sort((a, b) => b.s - a.s)
  console.log(`\n== ${leg}: ${files.length} files in ${total.toFixed(0)} s; the slowest:`)
  for (const f of files.slice(0, SLOWEST)) console.log(`${f.s.toFixed(1).padStart(8)} s  ${unescape(f.file)}`)
}
let any = false
for (let i = 0; i < args.length; i += 4) {
  const [leg, report, rc, log] = args.slice(i, i + 4)
  const failures = []
  if (existsSync(report)) {
    const xml = readFileSync(report, 'utf8')
    // A failing test case: <testcase name=".." classname=".." file=".." ...> <failure ...>text</failure>
    const cases = /<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g
    for (let m; (m = cases.exec(xml)); ) {
      const body = m[2] ?? ''
      const failure = /<(failure|error)\b([^>]*)>([\s\S]*?)<\/\1>|<(failure|error)\b([^>]*)\/>/.exec(body)
      if (!failure) continue
      const attr = (name, s = m[1]) => unescape((new RegExp(`\\b${name}="([^"]*)"`).exec(s) ?? [])[1] ?? '')
      const text = unescape(failure[3] ?? attr('message', failure[2] ?? failure[5] ?? ''))
      failures.push({ file: attr('file'), suite: attr('classname'), name: attr('name'), text })
    }
  }
  if (!failures.length && Number(rc) === 0) continue
  any = true
  console.log(`\n== what failed on ${leg} (exit ${rc})`)
  for (const f of failures) {
    console.log(`\n(fail) ${f.file}: ${f.suite ? `${f.suite} > ` : ''}${f.name}`)
    const lines = f.text.trim().split('\n')
    console.log(lines.slice(0, MESSAGE_LINES).map((l) => `    ${l}`).join('\n'))
    if (lines.length > MESSAGE_LINES) console.log(`    ... ${lines.length - MESSAGE_LINES} more lines`)
  }
  if (!existsSync(report)) console.log(`no report was written (${report})`)
  // Errors the report does not hold: between tests, in a file that did not load, of the runner.
  if (existsSync(log)) {
    const out = readFileSync(log, 'utf8').split('\n')
    const marks = []
    out.forEach((line, n) => {
      // With failing tests in the report, their messages are above: only what the report cannot hold.
      const beyond = /Unhandled error|error: script ".*" exited|panic|Segmentation fault|SIGSEGV/i
      if (beyond.test(line) || (!failures.length && /^error: |^\(fail\)/.test(line))) marks.push(n)
    })
    if (marks.length) {
      console.log(`\n-- lines of its output that tell of a failure (${marks.length}; at most 10 shown, with what follows):`)
      for (const n of marks.slice(0, 10)) console.log(out.slice(n, n + 12).map((l) => `    ${l}`).join('\n') + '\n    --')
    }
    if (!failures.length) {
      console.log('\n-- the end of its output:')
      console.log(out.slice(-30).map((l) => `    ${l}`).join('\n'))
    }
  }
}
if (!any) console.log('\n== nothing failed on either leg')
