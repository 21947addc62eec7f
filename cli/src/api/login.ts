import type { Command } from 'commander'
import { AuthenticationError, ConnectionError, DEFAULT_BASE_URL, Growth, PermissionDeniedError } from '@growth-service/sdk'
import { CliError } from '../errors.ts'
import { createOutput, JSON_FLAG } from '../output.ts'
import { maskToken, saveProfile } from './profiles.ts'

type LoginOptions = { token?: string; baseUrl?: string; profile: string; json?: boolean }

/**
 * growth login: checks a token against the API, then saves it with the base URL as a named profile
 * (profiles.ts), so later commands need neither flag nor environment. The token is never printed
 * back: only its kind and last four characters.
 */
export function registerLogin(program: Command) {
  program
    .command('login')
    .description('check a token against the API and save it, with the base URL, as a named profile (a file only you can read)')
    .option('--token <token>', 'the credential to save (default: GROWTH_TOKEN)')
    .option('--base-url <url>', `the API, /api/v1 included (default: GROWTH_BASE_URL, else ${DEFAULT_BASE_URL})`)
    .option('--profile <name>', 'the name to save it under', 'default')
    .option(...JSON_FLAG)
    .action(async (opts: LoginOptions) => {
      const out = createOutput({ json: opts.json })
      const token = opts.token ?? (process.env.GROWTH_TOKEN || undefined)
      if (!token) throw new CliError('no token: pass --token (or set GROWTH_TOKEN) with a svc_live_, svc_test_ or svc_agt_ credential')
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
        if (err instanceof AuthenticationError) throw new CliError(`the API at ${baseUrl} refused this token (${maskToken(token)}): ${err.message}`)
        // A token without the scope to read usage still authenticated.
        if (err instanceof PermissionDeniedError) who = 'a workspace token'
        else if (err instanceof ConnectionError) throw new CliError(`${err.message} Is the server running there? Pass --base-url.`)
        else throw err
      }
      const path = saveProfile(opts.profile, { baseUrl, token })
      out.result({ profile: opts.profile, baseUrl, token: maskToken(token), path }, () => `Saved profile ${opts.profile}: ${who} (${maskToken(token)}) at ${baseUrl}, in ${path}`)
    })
}
