import type { ExperimentKind, Expectation } from '../core/enums.ts'
import { newId } from '../core/ids.ts'
import { isoOrNull } from '../core/time.ts'
import {
  type AbTestInsert,
  type EmailSendInsert,
  type ExperimentInsert,
  insertAbTests,
  insertEmailSends,
  insertExperiments,
} from '../store/experiments.ts'
import type { DemoCampaigns } from './campaigns.ts'
import type { DemoContext } from './context.ts'
import type { DemoDecisions } from './decisions.ts'

/** The A/B test or email send a hypothesis is about, and what it showed once decided. */
type Subject = { id: string; created_at: Date; decided_at: Date | null; observed: Expectation | null }

type DemoTests = { abTests: AbTestInsert[]; sends: EmailSendInsert[] }

/**
 * A/B tests (decided each way, two running), email sends (with and without a decided hold-back,
 * one waiting for approval, one rejected) and the hypotheses written against them.
 */
export async function seedExperiments(ctx: DemoContext, c: DemoCampaigns, decisionsOf: DemoDecisions['decisionsOf']): Promise<DemoTests> {
  const { r, ws, agoJitter, events } = ctx
  const now = ctx.now.getTime()
  // name, variant a, variant b, created (days ago), winner (null: still running), decided (days ago), campaign
  const abSpecs: [string, string, string, number, AbTestInsert['winner'], number | null, string][] = [
    ['Newsletter subject: farmer story vs. discount', 'Meet the family behind our Guji', '15% off your next bag this week', 121, 'a', 111, c.newsletter.id],
    ['Gift guide subject: urgency vs. curiosity', 'Order by Dec 15 for holiday delivery', 'Three origins, one box, zero guesswork', 84, 'b', 76, c.newsletter.id],
    ['Brew guide: long read vs. three tips', 'The complete guide to your V60', 'Three tips for a sweeter cup', 44, 'none', 37, c.newsletter.id],
    ['Guji launch: tasting notes vs. farmer story', 'Jasmine, bergamot, peach: our new Guji', 'How the Guji washing station changed our coffee', 6, null, null, c.launch.id],
    ['Cart reminder: free shipping vs. brew tip', 'Your coffee ships free over $45', 'Still thinking? Here is how to brew it', 2, null, null, c.newsletter.id],
  ]
  const abTests = abSpecs.map(([name, a, b, days, winner, decidedDays, campaignId]): AbTestInsert => {
    const createdAt = agoJitter(days, 0.3)
    return {
      ...ws, id: newId('abTest', createdAt), campaign_id: campaignId, name, variant_a: a, variant_b: b,
      status: winner ? 'decided' : 'running', winner, decided_at: decidedDays === null ? null : agoJitter(decidedDays, 0.3), created_at: createdAt,
    }
  })

  type SendSpec = [string, string, number, number | null, number | null, number | null, number]
  const sendSpecs: SendSpec[] = [
    // subject, campaign, recipients, sent (days ago), decided (days ago), holdout lift, created (days ago)
    ['Meet the family behind our Guji', c.newsletter.id, 14_820, 140, 126, 6.8, 141],
    ['Holiday gift boxes are here', c.newsletter.id, 18_450, 100, 86, 11.5, 101],
    ['Your brew guide for the new year', c.newsletter.id, 16_900, 70, 56, -0.4, 71],
    ['Spring espresso blend: first taste', c.newsletter.id, 17_120, 30, 16, 3.2, 31],
    ['Back in stock: Kenya Kiambu AA, 48 hours early for you', c.sms.id, 3_210, 5, null, null, 5.5],
    ['New: Ethiopia Guji washed, tasting notes inside', c.launch.id, 17_340, 2, null, null, 2.4],
    ['Last call: free shipping over $45 ends Sunday', c.newsletter.id, 16_880, null, null, null, 0.12],
    ['40% off everything this weekend only', c.newsletter.id, 18_010, null, null, null, 12],
  ]
  const sends = sendSpecs.map(([subject, campaignId, recipients, sent, decided, lift, created]): EmailSendInsert => {
    const createdAt = agoJitter(created, 0.05)
    return {
      ...ws, id: newId('emailSend', createdAt), campaign_id: campaignId, subject, recipients,
      holdout_status: decided === null ? 'open' : 'decided', holdout_lift: lift,
      decided_at: decided === null ? null : agoJitter(decided, 0.2), sent_at: sent === null ? null : agoJitter(sent, 0.02), created_at: createdAt,
    }
  })

  // hypothesis, kind, the test it is about, what it expects, the mission whose latest decision it tests (index into MISSION_SPECS)
  type ExpSpec = [string, ExperimentKind, Subject, Expectation, number | null]
  const abSubject = (i: number): Subject => ({
    id: abTests[i].id, created_at: abTests[i].created_at, decided_at: abTests[i].decided_at,
    observed: abTests[i].winner === null ? null : ({ a: 'a_better', b: 'b_better', none: 'no_difference' } as const)[abTests[i].winner!],
  })
  const sendSubject = (i: number): Subject => ({
    id: sends[i].id, created_at: sends[i].created_at, decided_at: sends[i].decided_at,
    observed: sends[i].holdout_status === 'decided' ? ((sends[i].holdout_lift ?? 0) > 0 ? 'send_adds' : 'no_difference') : null,
  })
  const experimentSpecs: ExpSpec[] = [
    ['A farmer story in the subject line beats a discount: our list opens for provenance, not coupons.', 'email_ab_test', abSubject(0), 'a_better', 0],
    ['Curiosity beats urgency for the gift guide; people still had weeks to order.', 'email_ab_test', abSubject(1), 'a_better', 2],
    ['Three short tips outperform the long guide on mobile, where 70% of opens happen.', 'email_ab_test', abSubject(2), 'b_better', 0],
    ['Tasting notes sell a new origin better than the farm story for people who already buy from us.', 'email_ab_test', abSubject(3), 'a_better', 0],
    ['The gift-box announcement adds orders beyond what the hold-back group buys anyway.', 'email_holdout', sendSubject(1), 'send_adds', 2],
    ['The new-year brew guide changes nothing measurable; its value is goodwill, not orders.', 'email_holdout', sendSubject(2), 'no_difference', 0],
    ['Early-access restock texts add Kiambu orders over the hold-back within 7 days.', 'sms_holdout', sendSubject(4), 'send_adds', 0],
  ]
  const experiments = experimentSpecs.map(([hypothesis, kind, subject, expectation, mission]) => {
    const end = subject.decided_at ?? new Date(now)
    const createdAt = new Date(subject.created_at.getTime() + r.float(0.1, 0.4) * (end.getTime() - subject.created_at.getTime()))
    const linked = mission === null ? undefined : decisionsOf(mission, createdAt).at(-1)
    const e: ExperimentInsert = {
      ...ws, id: newId('experiment', createdAt), hypothesis, kind, subject_id: subject.id, expectation,
      decision_id: linked?.id ?? null, created_at: createdAt,
    }
    const data = { id: e.id, kind, subjectId: subject.id, expectation, decisionId: e.decision_id, hypothesis }
    events.add('experiment.created', createdAt, { experiment: { ...data, status: 'open', result: null } })
    if (subject.decided_at && subject.observed) {
      events.add('experiment.decided', subject.decided_at, {
        experiment: { ...data, status: 'decided', result: { observed: subject.observed, held: subject.observed === expectation, decidedAt: isoOrNull(subject.decided_at) } },
      })
    }
    return e
  })
  await insertAbTests(ctx.tx, abTests)
  await insertEmailSends(ctx.tx, sends)
  await insertExperiments(ctx.tx, experiments)
  return { abTests, sends }
}
