import express from 'express'
import { Webhooks, WebhookVerificationError } from '@growth-service/sdk'

const secret = process.env.WEBHOOK_SECRET // the endpoint's whsec_... secret
if (!secret) throw new Error('Set WEBHOOK_SECRET to the endpoint’s whsec_... secret.')

const app = express()
// express.raw(), not express.json(): the signature is over the raw body, exactly as received.
app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
  try {
    const event = Webhooks.verify(req.body, req.headers['x-service-signature'], secret)
    console.log('received', event.event, event.id)
    res.sendStatus(200)
  } catch (error) {
    if (error instanceof WebhookVerificationError) res.status(400).send(error.reason)
    else throw error
  }
})
const server = app.listen(Number(process.env.PORT ?? 3000), () => console.log(`Listening on http://127.0.0.1:${server.address().port}/webhooks`))
