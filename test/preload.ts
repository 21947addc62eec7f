import { afterAll } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseSecretsKey, SecretsKeyring, useSecretsKeyring } from '../server/src/core/secrets.ts'

/**
 * Loaded before every test file (bunfig.toml): one secrets key for the whole run. Every process a
 * test starts against a database (servers, `growth` commands, workers) inherits it from the
 * environment, and the test process itself seals and opens with it, so they all agree; no key file
 * is made in the home directory. A test about the key sets its own.
 */
process.env.GROWTH_SECRETS_KEY ??= '6b6579206f66207468652074657374732c206e6f742061207365637265742121'
useSecretsKeyring(new SecretsKeyring(parseSecretsKey(process.env.GROWTH_SECRETS_KEY)!, [], 'GROWTH_SECRETS_KEY'))

/**
 * One temporary directory for the whole run: every directory a test or a process it starts makes
 * under the system's temporary directory (embedded databases, CLI profiles, packed SDKs, browser
 * profiles) lands inside it, and it is removed when the run ends, whether or not each test cleaned
 * up after itself. os.tmpdir() reads TMPDIR at each call, and child processes inherit it. (Bun's
 * test runner does not emit process 'exit'; an afterAll in a preload runs once, after every file.)
 */
const runDir = mkdtempSync(join(tmpdir(), 'growth-test-run-'))
// Readable and searchable by other users: the fault suite runs PostgreSQL and PgBouncer as users of
// their own, in directories of their own inside it (each made private by mkdtemp).
chmodSync(runDir, 0o755)
process.env.TMPDIR = runDir
afterAll(() => rmSync(runDir, { recursive: true, force: true }))
