import { Webhooks, WebhookVerificationError } from '@growth-service/sdk'

const secret = process.env.WEBHOOK_SECRET // the endpoint's whsec_... secret
if (!secret) throw new Error('Set WEBHOOK_SECRET to the endpoint’s whsec_... secret.')

// Bun.serve takes a fetch handler: the same code runs on Deno.serve, Cloudflare Workers and Next.js route handlers.
const server = Bun.serve({
  port: Number(process.env.PORT ?? 3000),
  async fetch(req) {
    if (req.method !== 'POST' || new URL(req.url).pathname !== '/webhooks') return new Response('Not found', { status: 404 })
    try {
      // The raw body, exactly as received: parsed and re-serialized JSON is not what was signed.
      const event = Webhooks.verify(await req.text(), req.headers.get('X-Service-Signature'), secret)
      console.log('received', event.event, event.id)
      return new Response(null, { status: 200 })
    } catch (error) {
      if (error instanceof WebhookVerificationError) return new Response(error.reason, { status: 400 })
      throw error
    }
  },
})
console.log(`Listening on http://127.0.0.1:${server.port}/webhooks`)
