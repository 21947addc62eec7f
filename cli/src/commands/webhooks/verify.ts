import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { Webhooks, WebhookVerificationError } from '@growth-service/sdk'
import { ApiRefusal, CliError } from '../../errors.ts'
import { createOutput, JSON_FLAG } from '../../output.ts'

type VerifyOptions = { secret: string[]; header: string; tolerance: string; json?: boolean }

/**
 * growth webhooks verify --secret S --header H FILE: checks a saved delivery offline, exactly as a
 * receiver's Webhooks.verify does (the body's bytes as saved, the X-Service-Signature header, one or
 * more secrets). A delivery saved a while ago is older than the 300 s a receiver allows: pass
 * --tolerance none to check the signature alone.
 */
export function registerWebhooksVerify(parent: Command) {
  parent
    .command('verify')
    .description("check a saved delivery's signature offline, as a receiver's Webhooks.verify does")
    .argument('<file>', 'the body exactly as delivered (- for standard input)')
    .requiredOption('--header <value>', 'the X-Service-Signature header, e.g. t=1795453570,v1=5f2b...')
    .requiredOption('--secret <whsec>', "the endpoint's secret; repeat it during a rotation", (v: string, prev: string[] = []) => [...prev, v])
    .option('--tolerance <seconds>', 'how far the signature time may be from now, either way; none: do not check it', '300')
    .option(...JSON_FLAG)
    .action((file: string, opts: VerifyOptions) => {
      const out = createOutput({ json: opts.json })
      const tolerance = opts.tolerance === 'none' ? Number.POSITIVE_INFINITY : Number(opts.tolerance)
      if (!(tolerance >= 0)) throw new CliError(`--tolerance must be a number of seconds >= 0 or none; got ${JSON.stringify(opts.tolerance)}`)
      let body: Buffer
      try {
        body = readFileSync(file === '-' ? 0 : file)
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`)
      }
      try {
        const event = Webhooks.verify(body, opts.header, opts.secret, { tolerance })
        const signedAt = Number(/t=(\d+)/.exec(opts.header)?.[1])
        out.result(event, () => `Verified: ${event.event} ${event.id}, signed ${new Date(signedAt * 1000).toISOString()}`)
      } catch (err) {
        if (err instanceof WebhookVerificationError) throw new ApiRefusal({ code: err.reason, message: inThisCommand(err, opts.header), requestId: null }, undefined, Boolean(opts.json))
        if (err instanceof SyntaxError) throw new CliError(err.message)
        throw err
      }
    })
}

/**
 * The SDK's advice in this command's terms: a receiver passes { tolerance: Infinity } or the
 * request's headers whole, where this command takes --tolerance none and X-Service-Signature's value.
 */
function inThisCommand(err: WebhookVerificationError, header: string): string {
  if (err.reason === 'timestamp_too_old')
    return err.message.replace(/: a replayed delivery.*$/, ': to check a delivery saved earlier, add --tolerance none (one that arrives this old at a receiver is a replay, or its clock is wrong).')
  if (err.reason === 'malformed_header' && /^v1,/.test(header.trim()))
    return "X-Service-Signature is not t=<unix seconds>,v1=<hex>: this is webhook-signature's value (Standard Webhooks, v1,<base64>); --header takes X-Service-Signature's value, which every delivery carries beside it."
  return err.message
}
