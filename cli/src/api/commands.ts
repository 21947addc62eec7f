import { type Command, Option } from 'commander'
import { Growth, type Page } from '@growth-service/sdk'
import { createOutput, writeOut } from '../output.ts'
import { type CommandSpec, commandSpecs, type FlagSpec } from './flags.ts'
import { addCredentialOptions, type CredentialOptions, resolveCredentials } from './credentials.ts'
import { registerContactsImport } from './contacts-import.ts'
import { registerEventsTail } from './events-tail.ts'
import { registerLogsTail } from './logs-tail.ts'
import { refusalOf } from './refusal.ts'
import { renderItem, renderList, useColor } from './render.ts'
import { setAt, valueOf } from './values.ts'
import { DECISION_EXIT_HELP, notAllowed, REQUIRE_ALLOWED_HELP } from './verdict.ts'

/**
 * Every operation of the API as a `growth` command named as its SDK method (`growth decisions
 * list`, `growth agent authorize`, `growth track`), its query parameters and body fields as flags
 * (flags.ts), run through the SDK. Exit 0 on success, 1 on a refusal (the API's code, message and
 * request id on stderr; with --require-allowed, a decision other than allowed), 2 on anything
 * unexpected (no answer, a bug).
 */

type Options = CredentialOptions & { json?: boolean; all?: boolean; idempotencyKey?: string; requireAllowed?: boolean } & Record<string, unknown>

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** The flag's help line: what it is, its type and allowed values, an example. */
function helpOf(flag: FlagSpec): string {
  const parts = [flag.description.replace(/\.$/, '')]
  // "required" apart from the values, so it never reads as one of them ("one of a, b; required").
  parts.push(`(${flag.typeText}${flag.required ? '; required' : ''})`)
  if (flag.example) parts.push(`e.g. ${flag.flag} ${flag.kind === 'pairs' ? flag.example.replace(`${flag.flag} `, '').split(` ${flag.flag} `)[0] : flag.example}`)
  return parts.filter(Boolean).join(' ')
}

function addFlags(cmd: Command, spec: CommandSpec) {
  for (const flag of spec.flags) {
    const placeholder = flag.kind === 'pairs' ? '<name=value>' : `<${flag.kind === 'string' && flag.values ? 'value' : flag.kind}>`
    const option = new Option(`${flag.flag} ${placeholder}`, helpOf(flag))
    if (flag.kind === 'pairs') option.argParser(collect)
    if (flag.required) option.makeOptionMandatory()
    cmd.addOption(option)
  }
  if (spec.operation.kind === 'list') {
    cmd.option('--all', 'every page, not just the first (with --json: one line per item)')
  }
  if (spec.decides) cmd.option('--require-allowed', REQUIRE_ALLOWED_HELP)
  if (spec.operation.kind === 'write') {
    cmd.option('--idempotency-key <key>', "the write's Idempotency-Key (default: one made for this call, reused by its retries)")
  }
  cmd.option('--json', "print the API's data as JSON on stdout, and a refusal as JSON on stderr")
  addCredentialOptions(cmd)
}

/** Query and body from the flags given. */
function inputOf(spec: CommandSpec, opts: Options): { query: Record<string, unknown>; body: Record<string, unknown> } {
  const query: Record<string, unknown> = {}
  const body: Record<string, unknown> = {}
  for (const flag of spec.flags) {
    const raw = opts[flag.key] as string | string[] | undefined
    if (raw === undefined) continue
    setAt(flag.in === 'query' ? query : body, flag.path, valueOf(flag, raw))
  }
  return { query, body }
}

type Method = (arg: unknown, options?: { idempotencyKey?: string }) => PromiseLike<unknown> & AsyncIterable<unknown> & { withResponse(): Promise<{ data: unknown; requestId: string | undefined }> }

/** The SDK method an operation's words name (`['agents', 'requests', 'list']`), bound to its resource. */
export function methodOf<M = Method>(growth: Growth, words: readonly string[]): M {
  let at: unknown = growth
  let owner: unknown = growth
  for (const word of words) {
    owner = at
    at = (at as Record<string, unknown>)[word]
  }
  if (typeof at !== 'function') throw new Error(`the SDK has no method ${words.join('.')}`)
  return (at as (...args: unknown[]) => unknown).bind(owner) as M
}

async function run(spec: CommandSpec, opts: Options) {
  const json = Boolean(opts.json)
  const credentials = resolveCredentials(opts)
  try {
    const growth = new Growth({ token: credentials.token, baseUrl: credentials.baseUrl })
    const { query, body } = inputOf(spec, opts)
    const method = methodOf(growth, spec.words)
    const out = createOutput({ json })
    if (spec.operation.kind === 'write') {
      const { data, requestId } = await method(body, { idempotencyKey: opts.idempotencyKey }).withResponse()
      out.result(data as object, () => renderItem(data))
      const refused = spec.decides && opts.requireAllowed ? notAllowed(data, requestId, json) : undefined
      if (refused) throw refused
      return
    }
    if (spec.operation.kind === 'item') {
      const data = await method(query)
      out.result(data as object, () => renderItem(data))
      return
    }
    if (opts.all) {
      const items: unknown[] = []
      for await (const item of method(query)) {
        if (json) writeOut(`${JSON.stringify(item)}\n`)
        else items.push(item)
      }
      if (!json) writeOut(renderList(items, { color: useColor() }).map((l) => `${l}\n`).join(''))
      return
    }
    const page = (await method(query)) as Page<unknown>
    out.result(page.data, () => renderList(page.data, { color: useColor() }))
    const next = page.hasNextPage() ? page.meta?.[spec.operation.paging!.next] : undefined
    if (next) out.note(`More: add --${spec.operation.paging!.param} ${next}, or --all for every page.`)
  } catch (err) {
    throw refusalOf(err, json, credentials, { keyFlag: true })
  }
}

export function registerApiCommands(program: Command) {
  const groups = new Map<string, Command>()
  for (const spec of commandSpecs()) {
    const [first, second] = spec.words
    let parent = program
    if (second !== undefined) {
      parent = groups.get(first!) ?? program.command(first!).description(`${first} (the API)`)
      groups.set(first!, parent)
    }
    // Contacts come from a file, in batches: its own command (contacts-import.ts).
    if (spec.operationId === 'importContacts') {
      registerContactsImport(parent)
      continue
    }
    const cmd = parent.command(second ?? first!).description(spec.summary || spec.operationId)
    addFlags(cmd, spec)
    cmd.addHelpText('after', `\n${spec.operation.method} /api/v1${spec.operation.path} (${spec.operationId}). ${spec.description.split('\n')[0] ?? ''}\n`)
    if (spec.decides) cmd.addHelpText('after', `${DECISION_EXIT_HELP(spec.words.join(' '))}\n`)
    cmd.action((opts: Options) => run(spec, opts))
  }
  // Commands that do more than one call: beside the generated ones of their resource.
  registerEventsTail(groups.get('events')!)
  registerLogsTail(groups.get('logs')!)
}
