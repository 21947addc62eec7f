import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { Webhooks, WebhookVerificationError } from '@growth-service/sdk'
import { ApiRefusal, CliError } from '../../errors.ts'
import { createOutput, JSON_FLAG } from '../../output.ts'

type VerifyOptions = { secret: string[]; header: string[]; tolerance: string; json?: boolean }

/** `Name: value`, as curl -H and a saved request write a header; X-Service-Signature's own value never has this shape. */
const NAMED = /^([A-Za-z0-9-]+):\s*(.*)$/s

/**
 * The --header values as Webhooks.verify takes them: X-Service-Signature's value alone, or, when any
 * is given as `Name: value`, the headers whole (a bare value among them is X-Service-Signature's), so
 * that a delivery saved with its Standard Webhooks headers is checked by webhook-signature.
 */
function headersGiven(values: string[]): string | Record<string, string> {
  if (!values.some((v) => NAMED.test(v.trim()))) return values.join(',')
  const headers: Record<string, string> = {}
  for (const v of values) {
    const named = NAMED.exec(v.trim())
    const [name, value] = named ? [named[1]!.toLowerCase(), named[2]!.trim()] : ['x-service-signature', v.trim()]
    if (headers[name] !== undefined) throw new CliError(`--header ${name} is given twice; give each header once (several signatures go in one value, as delivered)`)
    headers[name] = value
  }
  return headers
}

/** When the delivery was signed, as the header checked says (unix seconds). */
function signedAt(headers: string | Record<string, string>): number {
  if (typeof headers === 'string') return Number(/t=(\d+)/.exec(headers)?.[1])
  if (headers['webhook-signature']) return Number(headers['webhook-timestamp'])
  return Number(/t=(\d+)/.exec(headers['x-service-signature'] ?? '')?.[1])
}

/**
 * growth webhooks verify --secret S --header H FILE: checks a saved delivery offline, exactly as a
 * receiver's Webhooks.verify does (the body's bytes as saved, one or more secrets), by
 * X-Service-Signature's value, or by the Standard Webhooks headers given as `Name: value`
 * (webhook-id, webhook-timestamp, webhook-signature). A delivery saved a while ago is older than the
 * 300 s a receiver allows: pass --tolerance none to check the signature alone.
 */
export function registerWebhooksVerify(parent: Command) {
  parent
    .command('verify')
    .description("check a saved delivery's signature offline, as a receiver's Webhooks.verify does")
    .argument('<file>', 'the body exactly as delivered (- for standard input)')
    .requiredOption(
      '--header <value>',
      "X-Service-Signature's value (t=1795453570,v1=5f2b...), or a header as 'Name: value'; for Standard Webhooks, give webhook-id, webhook-timestamp and webhook-signature so, one --header each",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .requiredOption('--secret <whsec>', "the endpoint's secret; repeat it during a rotation", (v: string, prev: string[] = []) => [...prev, v])
    .option('--tolerance <seconds>', 'how far the signature time may be from now, either way; none: do not check it', '300')
    .option(...JSON_FLAG)
    .action((file: string, opts: VerifyOptions) => {
      const out = createOutput({ json: opts.json })
      const tolerance = opts.tolerance === 'none' ? Number.POSITIVE_INFINITY : Number(opts.tolerance)
      if (!(tolerance >= 0)) throw new CliError(`--tolerance must be a number of seconds >= 0 or none; got ${JSON.stringify(opts.tolerance)}`)
      const headers = headersGiven(opts.header)
      let body: Buffer
      try {
        body = readFileSync(file === '-' ? 0 : file)
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`)
      }
      try {
        const event = Webhooks.verify(body, headers, opts.secret, { tolerance })
        const by = typeof headers !== 'string' && headers['webhook-signature'] ? ' (webhook-signature)' : ''
        out.result(event, () => `Verified${by}: ${event.event} ${event.id}, signed ${new Date(signedAt(headers) * 1000).toISOString()}`)
      } catch (err) {
        if (err instanceof WebhookVerificationError) throw new ApiRefusal({ code: err.reason, message: inThisCommand(err, headers), requestId: null }, undefined, Boolean(opts.json))
        if (err instanceof SyntaxError) throw new CliError(err.message)
        throw err
      }
    })
}

/**
 * The SDK's advice in this command's terms: a receiver passes { tolerance: Infinity } or the
 * request's headers whole, where this command takes --tolerance none and each header as 'Name: value'.
 */
function inThisCommand(err: WebhookVerificationError, headers: string | Record<string, string>): string {
  if (err.reason === 'timestamp_too_old')
    return err.message.replace(/: a replayed delivery.*$/, ': to check a delivery saved earlier, add --tolerance none (one that arrives this old at a receiver is a replay, or its clock is wrong).')
  if (err.reason === 'malformed_header' && typeof headers === 'string' && /^v1,/.test(headers.trim()))
    return "X-Service-Signature is not t=<unix seconds>,v1=<hex>: this is webhook-signature's value (Standard Webhooks, v1,<base64>), which is checked together with webhook-id and webhook-timestamp: give each as --header 'Name: value' (--header 'webhook-id: evt_...' --header 'webhook-timestamp: ...' --header 'webhook-signature: v1,...'), or give X-Service-Signature's value, which every delivery carries beside them."
  return err.message
}
