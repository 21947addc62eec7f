import fs, { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

/**
 * The embedded database is for its owner alone (docs/decisions.md, "The embedded database's
 * files"): DATA_DIR is 0700, every directory in it 0700, every file 0600, the socket 0600, whatever
 * the umask of the process that starts it.
 */
const OWNER_DIR_MODE = 0o700
export const OWNER_FILE_MODE = 0o600
const GROUP_AND_OTHERS = 0o077

/** DATA_DIR open to group or others: the start is refused, nothing written. */
class DataDirOpenError extends Error {
  readonly code = 'EDATADIR_OPEN'
  constructor(dataDir: string, mode: number) {
    super(
      `DATA_DIR ${dataDir} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); the embedded database must be readable by its owner only: run chmod 700 ${quoteForShell(dataDir)}, then try again`,
    )
  }
}

function quoteForShell(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`
}

/**
 * Makes DATA_DIR (0700) when it is missing; refuses one open to group or others, as PostgreSQL
 * refuses its data directory, before anything is written in it.
 */
export function ownerOnlyDataDir(dataDir: string): void {
  if (existsSync(dataDir) && statSync(dataDir).isDirectory()) {
    const mode = statSync(dataDir).mode & 0o777
    if (mode & GROUP_AND_OTHERS) throw new DataDirOpenError(dataDir, mode)
    return
  }
  // (Where a file is, this throws as it always did: EEXIST, named by the caller.)
  mkdirSync(dataDir, { recursive: true, mode: OWNER_DIR_MODE })
  chmodSync(dataDir, OWNER_DIR_MODE)
}

/** Every directory under `root` (itself included) 0700 and every file 0600: a database made before, or by initdb. */
export function ownerOnlyTree(root: string): void {
  const walk = (path: string) => {
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) return
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== OWNER_DIR_MODE) chmodSync(path, OWNER_DIR_MODE)
      for (const name of readdirSync(path)) walk(join(path, name))
    } else if ((stat.mode & 0o777) !== OWNER_FILE_MODE) {
      chmodSync(path, OWNER_FILE_MODE)
    }
  }
  if (existsSync(root)) walk(root)
}

/**
 * While a directory is held here, the files PGlite makes in it are for their owner alone.
 *
 * PGlite (Emscripten's NODEFS) creates each file with mode 0777 and then chmods it to 0666 itself:
 * the umask narrows the first but not the second. So, while held: the process's umask is 077 (new
 * directories 0700, the socket made without a moment open to others), and `chmod` on a path inside
 * a held directory (and `fchmod`, whose descriptor names no path) keeps no group or other bit.
 * PGlite reaches `fs` through the same module object, so this is where its chmod can be narrowed
 * without patching it. Returns the release; the last release restores the umask and `fs`.
 */
export function holdOwnerOnly(dir: string): () => void {
  const root = resolve(dir)
  held.set(root, (held.get(root) ?? 0) + 1)
  if (held.size === 1 && held.get(root) === 1) install()
  let released = false
  return () => {
    if (released) return
    released = true
    const n = held.get(root)! - 1
    if (n > 0) held.set(root, n)
    else held.delete(root)
    if (held.size === 0) uninstall()
  }
}

const held = new Map<string, number>()
let restore: (() => void) | undefined

function inHeld(path: fs.PathLike): boolean {
  const p = resolve(String(path))
  for (const root of held.keys()) {
    const rel = relative(root, p)
    if (rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'))) return true
  }
  return false
}

function install() {
  const umask = process.umask(GROUP_AND_OTHERS)
  const { chmodSync: chmod, fchmodSync: fchmod } = fs
  const narrow = (mode: fs.Mode) => (typeof mode === 'number' ? mode & ~GROUP_AND_OTHERS : Number.parseInt(mode, 8) & ~GROUP_AND_OTHERS)
  fs.chmodSync = (path, mode) => chmod(path, inHeld(path) ? narrow(mode) : mode)
  fs.fchmodSync = (fd, mode) => fchmod(fd, narrow(mode))
  restore = () => {
    fs.chmodSync = chmod
    fs.fchmodSync = fchmod
    process.umask(umask)
  }
}

function uninstall() {
  restore?.()
  restore = undefined
}
