import { expect, test } from 'bun:test'
import { databaseShown, shownUrl } from '../../server/src/core/shown-url.ts'

/** What a banner, an error or a log line prints of a URL that may carry a password. */
test('a URL is printed with its password as ***; DATABASE_URL as host:port/database, never its user', () => {
  expect(shownUrl('https://user:s3cret@collector.internal:4318/v1/traces')).toBe('https://user:***@collector.internal:4318/v1/traces')
  expect(shownUrl('not a url')).toBe('(not a URL)')
  expect(databaseShown('postgres://growth:s3cret@db.internal:5432/growth?sslmode=require')).toBe('db.internal:5432/growth')
  // A Unix socket (?host=, which postgres.js connects to over the URL's host) is named by its directory.
  expect(databaseShown('postgres://growth@localhost/growth?host=/var/run/postgresql')).toBe('/var/run/postgresql/growth')
  expect(databaseShown('postgres:///growth')).toBe('localhost/growth')
  expect(databaseShown('::')).toBeUndefined()
})
