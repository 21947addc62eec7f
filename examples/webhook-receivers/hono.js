import { Hono } from 'hono'
import { Webhooks, WebhookVerificationError } from '@growth-service/sdk'

const secret = process.env.WEBHOOK_SECRET // the endpoint's whsec_... secret
if (!secret) throw new Error('Set WEBHOOK_SECRET to the endpoint’s whsec_... secret.')

const app = new Hono()
app.post('/webhooks', async (c) => {
  try {
    // verifyAsync uses Web Crypto: the same handler runs on Bun, Deno, Node.js and Cloudflare Workers.
    const event = await Webhooks.verifyAsync(await c.req.text(), c.req.header('X-Service-Signature'), secret)
    console.log('received', event.event, event.id)
    return c.body(null, 200)
  } catch (error) {
    if (error instanceof WebhookVerificationError) return c.text(error.reason, 400)
    throw error
  }
})

const server = Bun.serve({ port: Number(process.env.PORT ?? 3000), fetch: app.fetch })
console.log(`Listening on http://127.0.0.1:${server.port}/webhooks`)
