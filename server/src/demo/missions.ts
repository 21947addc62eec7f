import { newId } from '../core/ids.ts'
import { type AutomationInsert, insertAutomations, insertMissions, type MissionInsert } from '../store/missions.ts'
import { DAY, type DemoContext, HOUR } from './context.ts'

/**
 * The four missions: two active, one completed (the holiday gift box), one paused. `started`,
 * `due` and `until` are days ago (a negative `due` is in the future); decisions of a mission fall
 * between its start and `until`.
 */
export const MISSION_SPECS = [
  {
    key: 'repeat', name: 'Turn first orders into habits', status: 'active',
    objective: 'Lift the share of first-time buyers who order again within 60 days.',
    metric: ['repeat_purchase_rate', 'percent', 18.4, 23.1, 28], started: 178, due: -30, until: 0,
    automations: [['Post-purchase brew guide', 'post_purchase_flow', 'running'], ['Replenishment reminder', 'replenishment_flow', 'running'], ['Lapsed subscriber win-back', 'winback_flow', 'paused']],
  },
  {
    key: 'paid', name: 'Profitable paid acquisition', status: 'active',
    objective: 'Bring the blended cost of a first order down while holding first-order volume.',
    metric: ['cost_per_first_order', 'USD', 2850, 2410, 2200], started: 165, due: -45, until: 0,
    automations: [['Meta budget pacing', 'ad_budget_pacing', 'running'], ['Creative fatigue watch', 'creative_rotation', 'running'], ['Lookalike audience refresh', 'audience_refresh', 'finished']],
  },
  {
    key: 'holiday', name: 'Holiday gift box launch', status: 'completed',
    objective: 'Sell 1,000 three-origin gift boxes across the US, EU and Japan stores.',
    metric: ['gift_box_orders', 'count', 0, 1240, 1000], started: 150, due: 45, until: 45,
    automations: [['Gift guide sequence', 'email_sequence', 'finished'], ['Gift box retargeting', 'retargeting', 'finished']],
  },
  {
    key: 'eu', name: 'Grow the EU newsletter', status: 'paused',
    objective: 'Reach 6,000 newsletter subscribers in the EU store before the spring launch.',
    metric: ['eu_subscribers', 'count', 3200, 4150, 6000], started: 120, due: -20, until: 20,
    automations: [['Brew-quiz pop-up', 'popup_capture', 'paused'], ['Welcome series (DE/FR)', 'welcome_series', 'paused']],
  },
] as const

export type MissionKey = (typeof MISSION_SPECS)[number]['key']

/** The missions (in MISSION_SPECS order) and their automations. */
export async function seedMissions(ctx: DemoContext): Promise<MissionInsert[]> {
  const { r, ws, ago, agoJitter } = ctx
  const now = ctx.now.getTime()
  const missions = MISSION_SPECS.map((m): MissionInsert => {
    const startedAt = agoJitter(m.started, 0.5)
    return {
      ...ws,
      id: newId('mission', startedAt),
      name: m.name,
      objective: m.objective,
      status: m.status,
      metric_name: m.metric[0],
      metric_unit: m.metric[1],
      baseline_value: m.metric[2],
      current_value: m.metric[3],
      target_value: m.metric[4],
      measured_at: m.status === 'completed' ? ago(m.until - 1) : new Date(now - r.int(3, 20) * HOUR),
      started_at: startedAt,
      due_at: ago(m.due),
      created_at: startedAt,
    }
  })
  const automations = MISSION_SPECS.flatMap((m, i) =>
    m.automations.map(([name, kind, status], k): AutomationInsert => {
      const createdAt = new Date(missions[i].started_at.getTime() + (1 + k * 4 + r.float(0, 3)) * DAY)
      return { ...ws, id: newId('automation', createdAt), mission_id: missions[i].id, name, kind, status, created_at: createdAt }
    }),
  )
  await insertMissions(ctx.tx, missions)
  await insertAutomations(ctx.tx, automations)
  return missions
}
