import { expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../server/src/config.ts'

/** The console's mail settings (docs/console.md, "Mail"): defaults, and a bad value named. */
const base = { PORT: '0', HOST: '127.0.0.1' }
const problem = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env })
  } catch (err) {
    if (err instanceof ConfigError) return err.message
    throw err
  }
  throw new Error('expected a configuration error')
}

test('no SMTP_URL: no mail; with it, MAIL_FROM and the defaults of retries and pace', () => {
  expect(loadConfig(base).mail).toBeNull()
  expect(loadConfig({ ...base, SMTP_URL: 'smtps://u:p@mail.example.com:465', MAIL_FROM: ' Growth <growth@example.com> ' }).mail).toEqual({
    smtpUrl: 'smtps://u:p@mail.example.com:465',
    from: 'Growth <growth@example.com>',
    retrySchedule: [10_000, 60_000, 300_000, 900_000, 3_600_000, 10_800_000],
    noticeIntervalMs: 60_000,
  })
  const tuned = loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'growth@example.com', MAIL_RETRY_SCHEDULE: '1s,2m', MAIL_NOTICE_INTERVAL: '5m' }).mail!
  expect([tuned.retrySchedule, tuned.noticeIntervalMs]).toEqual([[1000, 120_000], 300_000])
})

test('a bad mail setting stops the start naming it and what it must be', () => {
  expect(problem({ SMTP_URL: 'smtp://mail.example.com' })).toContain('MAIL_FROM must be set when SMTP_URL is')
  expect(problem({ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'growth@example.com' })).toContain('SMTP_URL must be a URL such as smtp://')
  expect(problem({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'growth@example.com', MAIL_RETRY_SCHEDULE: '5s,soon' })).toContain(
    'MAIL_RETRY_SCHEDULE must be a comma-separated list of durations such as 5s,5m,30m (got "5s,soon")',
  )
  expect(problem({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'growth@example.com', MAIL_NOTICE_INTERVAL: '0' })).toContain('MAIL_NOTICE_INTERVAL must be a duration')
})
