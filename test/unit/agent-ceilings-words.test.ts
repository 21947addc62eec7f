import { describe, expect, test } from 'bun:test'
import { ceilingsView } from '../../server/src/domain/agents.ts'

/** The ceilings' sentences (GET /agent/me, the policy plan, the console) read as a person would say them. */
describe('ceilings in words', () => {
  test('no recipients and no records say so, rather than "At most 0 recipients"', () => {
    const { sentences } = ceilingsView({ recipients: 0, records: 0, amountPercent: 0 })
    expect(sentences).toContain('No request may change a figure by any percent.')
    expect(sentences).toContain('No request may reach a recipient.')
    expect(sentences).toContain('No request may touch a record.')
    expect(sentences.join(' ')).not.toContain('At most 0')
  })

  test('an amount ceiling of nothing says so too, rather than "At most 0.00 USD"', () => {
    const { sentences } = ceilingsView({ amounts: [{ amountMinor: 0, currency: 'USD' }, { amountMinor: 50_000, currency: 'EUR' }] })
    expect(sentences).toEqual(['No request may spend any USD.', 'At most 500.00 EUR in one request.', 'No amount in any other currency.'])
  })

  test('one is singular, more are plural, with the count grouped', () => {
    expect(ceilingsView({ recipients: 1, records: 1 }).sentences).toEqual(
      expect.arrayContaining(['At most 1 recipient in one request.', 'At most 1 record in one request.']),
    )
    expect(ceilingsView({ recipients: 25_000, records: 2 }).sentences).toEqual(
      expect.arrayContaining(['At most 25,000 recipients in one request.', 'At most 2 records in one request.']),
    )
  })
})
