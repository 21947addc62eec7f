import { expect, test } from 'bun:test'
import { insertTools } from '../../server/src/store/agent-tools.ts'
import { agentIn, authorize, checkOf, decisionOf } from '../agent-helpers.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'

/**
 * An action an owner added to the catalogue (policy apply) is named by its own name in what the
 * gateway says, as the catalogue's actions are: "may issue a refund (billing.issue_refund)", the
 * key once. Seen by the agent walk: "may use billing.issue_refund (issue a refund)
 * (billing.issue_refund)" in the reason, and "asks to use billing.issue_refund
 * (billing.issue_refund) (billing.issue_refund)" in the approval a person reads in the inbox.
 */
test('the reason, the permission check and the approval a person reads name an added action once, by its name', async () => {
  const ws = await makeWorkspace()
  const { sql } = await getHarness()
  await sql.begin((tx) =>
    insertTools(tx, ws.id, [
      {
        key: 'billing',
        name: 'Billing',
        description: 'Refunds in the payment provider.',
        actions: [
          { key: 'issue_refund', name: 'Issue a refund', risk: 'low', dataUsed: [], reversible: false },
          { key: 'close_account', name: 'Close an account', risk: 'high', dataUsed: [], reversible: false },
          { key: 'delete_invoice', name: 'Delete an invoice', risk: 'low', dataUsed: [], reversible: false },
        ],
      },
    ]),
  )
  const bot = await agentIn(ws.id, { name: 'Refund Bot', allow: 'billing.issue_refund,billing.close_account' })

  const allowed = await authorize(bot.credential, { tool: 'billing', action: 'issue_refund', resource: 'ticket_1' })
  expect(decisionOf(allowed)).toBe('allowed')
  expect(allowed.body.data.reason).toBe('Allowed: Refund Bot may issue a refund (billing.issue_refund) and every check passed.')
  expect(checkOf(allowed, 'permission').detail).toBe('Refund Bot is permitted to issue a refund (billing.issue_refund).')

  const refused = await authorize(bot.credential, { tool: 'billing', action: 'delete_invoice', resource: 'inv_1' })
  expect(decisionOf(refused)).toBe('denied')
  expect(checkOf(refused, 'permission').detail).toStartWith('Refund Bot is not permitted to delete an invoice (billing.delete_invoice); it is permitted ')

  // High risk over the agent's medium: a person decides, on a summary built from the request.
  const asks = await authorize(bot.credential, { tool: 'billing', action: 'close_account', resource: 'acct_7' })
  expect(decisionOf(asks)).toBe('requires_approval')
  const approvals = await call('GET', '/api/v1/approvals', { token: ws.live })
  const approval = approvals.body.data.find((a: { id: string }) => a.id === asks.body.data.approvalId)
  expect(approval.summary).toBe('Refund Bot asks to close an account (billing.close_account) on acct_7.')
}, 60_000)
