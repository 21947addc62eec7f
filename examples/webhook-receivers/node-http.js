import { createServer } from 'node:http'
import { Webhooks, WebhookVerificationError } from '@growth-service/sdk'

const secret = process.env.WEBHOOK_SECRET // the endpoint's whsec_... secret
if (!secret) throw new Error('Set WEBHOOK_SECRET to the endpoint’s whsec_... secret.')

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/webhooks') return res.writeHead(404).end('Not found')
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    try {
      // The raw body, exactly as received: parsed and re-serialized JSON is not what was signed.
      const event = Webhooks.verify(Buffer.concat(chunks), req.headers['x-service-signature'], secret)
      console.log('received', event.event, event.id)
      res.writeHead(200).end()
    } catch (error) {
      if (error instanceof WebhookVerificationError) res.writeHead(400).end(error.reason)
      else res.writeHead(500).end()
    }
  })
})
server.listen(Number(process.env.PORT ?? 3000), () => console.log(`Listening on http://127.0.0.1:${server.address().port}/webhooks`))
