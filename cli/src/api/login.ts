import type { Command } from 'commander'
import { AuthenticationError, ConnectionError, DEFAULT_BASE_URL, Growth, PermissionDeniedError } from '@growth-service/sdk'
import { CliError, NoAnswer } from '../errors.ts'
import { createOutput, JSON_FLAG } from '../output.ts'
import { addCredentialOptions, type CredentialOptions } from './credentials.ts'
import { maskToken, saveProfile } from './profiles.ts'
import { noAnswerMessage } from './refusal.ts'

type LoginOptions = CredentialOptions & { json?: boolean; withToken?: boolean }

/**
 * growth login: checks a token against the API, then saves it with the base URL as a named profile
 * (profiles.ts), so later commands need neither flag nor environment. The token is never printed
 * back: only its kind and last four characters.
 */
export function registerLogin(program: Command) {
  addCredentialOptions(program.command('login'), {
    token: 'the credential to save (default: GROWTH_TOKEN)',
    baseUrl: `the API, /api/v1 included (default: GROWTH_BASE_URL, else ${DEFAULT_BASE_URL})`,
    profile: 'the name to save it under (default: default)',
  })
    .description('check a token against the API and save it, with the base URL, as a named profile (a file only you can read)')
    // As gh auth login --with-token: a token on the command line is in every process listing and the shell's history.
    .option('--with-token', 'read the token from standard input, e.g. < token.txt (kept out of the process list and the shell history)')
    .option(...JSON_FLAG)
    .action(async (opts: LoginOptions) => {
      const out = createOutput({ json: opts.json })
      const name = opts.profile ?? 'default'
      if (opts.withToken && opts.token) throw new CliError('--with-token reads the token from standard input: pass it there, or with --token, not both')
      const token = opts.withToken ? await tokenFromStdin() : opts.token ?? (process.env.GROWTH_TOKEN || undefined)
      if (!token) throw new CliError('no token: pass --with-token with the token on standard input, or --token (or set GROWTH_TOKEN), with a svc_live_, svc_test_ or svc_agt_ credential')
      const baseUrl = (opts.baseUrl ?? (process.env.GROWTH_BASE_URL || undefined) ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
      const growth = new Growth({ token, baseUrl, maxRetries: 1 })
      let who: string
      try {
        if (token.startsWith('svc_agt_')) who = `agent ${(await growth.agent.me()).agent.name}`
        else {
          await growth.usage.get()
          who = 'a workspace token'
        }
      } catch (err) {
        if (err instanceof AuthenticationError) throw new CliError(`the token from ${opts.withToken ? 'standard input' : opts.token ? '--token' : 'GROWTH_TOKEN'} (${maskToken(token)}) was refused by the API at ${baseUrl}: ${err.message}`)
        // A token without the scope to read usage still authenticated.
        if (err instanceof PermissionDeniedError) who = 'a workspace token'
        else if (err instanceof ConnectionError) throw new NoAnswer(noAnswerMessage(err, { baseUrl, baseUrlSource: opts.baseUrl ? '--base-url' : process.env.GROWTH_BASE_URL ? 'GROWTH_BASE_URL' : 'the default' }), Boolean(opts.json))
        else throw err
      }
      const path = saveProfile(name, { baseUrl, token })
      out.result({ profile: name, baseUrl, token: maskToken(token), path }, () => `Saved profile ${name}: ${who} (${maskToken(token)}) at ${baseUrl}, in ${path}`)
    })
}

/** The token piped to `growth login --with-token`: its first line, trimmed; refused when there is none, or when stdin is a terminal (nothing was piped). */
async function tokenFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CliError('--with-token reads the token from standard input, which is a terminal here: pipe it in (growth login --with-token < token.txt), or use --token')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const token = Buffer.concat(chunks).toString('utf8').split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '')
  if (!token) throw new CliError('--with-token found nothing on standard input: pipe the token in (growth login --with-token < token.txt)')
  return token
}
