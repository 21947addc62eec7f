import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { CliError } from './errors.ts'

/**
 * The operator's login: the name of the account this process runs as, from the system's user
 * database, never from $USER or $LOGNAME, which anyone can set (Bun's os.userInfo() answers
 * $USER, so it is not asked on Unix). In order: the local user database (/etc/passwd), then the
 * system's own `id -un` (accounts from LDAP or another directory); an account that has no name in
 * either (a container run as a bare numeric uid) is `uid-<number>`. Windows has no uid: there the
 * account name the system gives the process. Nothing at all: the command is refused.
 */
export function operatorLogin(): string {
  const uid = process.getuid?.()
  if (uid === undefined) {
    const name = safe(() => userInfo().username.trim())
    if (name) return name
    throw new CliError('cannot tell which operator is deciding: the system gives this process no user name.')
  }
  return fromPasswd(uid) ?? fromId() ?? `uid-${uid}`
}

function fromPasswd(uid: number): string | undefined {
  const passwd = safe(() => readFileSync('/etc/passwd', 'utf8')) ?? ''
  for (const line of passwd.split('\n')) {
    const [name, , id] = line.split(':')
    if (name && id === String(uid)) return name
  }
  return undefined
}

function fromId(): string | undefined {
  return (
    safe(() =>
      execFileSync('id', ['-un'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: '/usr/bin:/bin' }, timeout: 5_000 }).trim(),
    ) || undefined
  )
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f()
  } catch {
    return undefined
  }
}
