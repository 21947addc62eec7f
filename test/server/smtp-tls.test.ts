import { expect, test } from 'bun:test'
import { networkInterfaces } from 'node:os'
import { MailError } from '../../server/src/domain/mail.ts'
import { smtpMailPort } from '../../server/src/workers/smtp.ts'
import { startSmtpReceiver } from '../support/smtp-receiver.ts'

/**
 * smtp:// requires STARTTLS (server/src/workers/smtp.ts): a mail server reached across a network
 * that does not offer it gets no password and no mail, unless SMTP_URL says `?requireTLS=false`; one
 * on this machine (loopback) may go without. The receiver is a real SMTP server without STARTTLS,
 * on an address of this machine that is not loopback, so the mail goes as across a network.
 */
const across = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address

if (!across) console.warn('smtp-tls.test.ts: skipped: this machine has no IPv4 address other than loopback to reach a mail server at')

const mail = (to: string) => ({ to, subject: 'Your sign-in link', text: 'https://growth.example.com/console/signin/gsl_x' })

test.skipIf(!across)('a mail server across a network without STARTTLS gets nothing: the mail fails naming TLS, and is not taken', async () => {
  const receiver = await startSmtpReceiver(across!)
  const port = smtpMailPort({ smtpUrl: receiver.url.replace('smtp://', 'smtp://growth:mail-pass@'), from: 'growth@example.com' })
  try {
    const sent = await port.send(mail('kenji@example.com')).then(() => 'sent', (err) => err)
    expect(sent).toBeInstanceOf(MailError)
    expect((sent as MailError).message).toMatch(/STARTTLS|TLS/i)
    expect(receiver.messages).toHaveLength(0)
  } finally {
    port.close()
    await receiver.close()
  }
})

test.skipIf(!across)('?requireTLS=false in SMTP_URL lets it go without (a relay on a trusted network)', async () => {
  const receiver = await startSmtpReceiver(across!)
  const port = smtpMailPort({ smtpUrl: `${receiver.url}?requireTLS=false`, from: 'growth@example.com' })
  try {
    await port.send(mail('kenji@example.com'))
    expect((await receiver.mailTo('kenji@example.com'))[0]!.subject).toBe('Your sign-in link')
  } finally {
    port.close()
    await receiver.close()
  }
})

test('a mail server on this machine (loopback) may go without STARTTLS', async () => {
  const receiver = await startSmtpReceiver('127.0.0.1')
  const port = smtpMailPort({ smtpUrl: receiver.url, from: 'growth@example.com' })
  try {
    await port.send(mail('sofia@example.com'))
    expect(await receiver.mailTo('sofia@example.com')).toHaveLength(1)
  } finally {
    port.close()
    await receiver.close()
  }
})
