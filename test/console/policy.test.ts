import { describe, expect, test } from 'bun:test'
import { retireAgent } from '../../server/src/domain/agents.ts'
import { listAudit } from '../../server/src/domain/audit.ts'
import { agentIn, authorize } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { fetchConsole, signInAs } from '../support/console-session.ts'

/**
 * /console/policy over HTTP, signed in: the policy in sentences and as its document; an owner plans
 * a rule from the form (each change a sentence, the backtest listing a recorded request whose
 * decision would change), applies exactly that plan (the agent's next request is judged by the new
 * rule; the history and the audit list name the person), a stale plan is refused, a bad document
 * is refused naming line and field, the policy tests run; approvers and viewers read and change
 * nothing, even posting the forms by hand.
 */

const send = (credential: string, recipients: number) =>
  authorize(credential, { tool: 'email', action: 'send_campaign', resource: 'cmp_spring', summary: `Send to ${recipients}`, facts: { recipients } })

const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|#96);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[e as string]!)
/** The apply form of a plan page: the plan id and the document it carries. */
function applyForm(page: string) {
  const form = /<form method="post" action="\/console\/policy\/apply">[\s\S]*?<\/form>/.exec(page)?.[0]
  if (!form) throw new Error(`no apply form in the page:\n${page.slice(0, 2000)}`)
  const field = (name: string) => unescape(new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!)
  return { plan: field('plan'), document: field('document') }
}

async function workspaceWithRequest() {
  const ws = await makeWorkspace()
  const writer = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer', maxUnattendedRisk: 'high' })
  const before = await send(writer.credential, 120)
  expect(before.body.data.decision).toBe('allowed')
  return { ws, writer, requestId: before.body.data.id as string }
}

const ruleForm = (csrf: string, value = '50') => ({ csrf, edit: 'rule', effect: 'require_approval', target: 'email.send_campaign', agent: '', fact: 'recipients', value, currency: 'USD' })

describe('the console: the policy page', () => {
  test('an owner plans a rule from the form, reads the backtest, applies it; the next request waits for a person; history and audit name the person', async () => {
    const { ws, writer, requestId } = await workspaceWithRequest()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const read = await fetchConsole('/console/policy', { cookie: owner.cookie })
    expect(read.res.status).toBe(200)
    expect(read.text).toContain('Lifecycle Writer may send an email campaign (email.send_campaign).')
    expect(read.text).toContain('No rules')
    expect(read.text).toMatch(/<textarea id="policy-document" name="document"[^>]*>tools:/)
    expect(read.text).toContain('No policy has been applied here yet.')
    // Written for a person in the console: no CLI command or repository file to go and find.
    expect(read.text).not.toMatch(/growth admin|docs\/\w+\.md/)
    // The workspace's limits, which deny requests whatever the policy says, are on the page too.
    for (const limit of ['No budget change of more than 30% either way.', 'No discount of more than 25% off.', 'No send to more than 50,000 recipients.', 'No quiet hours: a send may start at any hour.']) {
      expect(read.text).toContain(`<li>${limit}</li>`)
    }
    await (await getHarness()).sql`UPDATE workspace_limits SET quiet_hours_start = 22, quiet_hours_end = 7 WHERE workspace_id = ${ws.id}`
    expect((await fetchConsole('/console/policy', { cookie: owner.cookie })).text).toContain('<li>No send starts in the quiet hours, 22:00 to 07:00 UTC.</li>')
    await (await getHarness()).sql`UPDATE workspace_limits SET quiet_hours_start = NULL, quiet_hours_end = NULL WHERE workspace_id = ${ws.id}`

    const planned = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: ruleForm(owner.csrf) })
    expect(planned.res.status).toBe(200)
    expect(planned.text).toContain('1 change (rules version')
    expect(planned.text).toMatch(/Adds the rule: Ask a person before any agent [^<]*more than 50 recipients/)
    // The backtest lists the recorded request whose decision would change, with the counts.
    expect(planned.text).toContain(`(${requestId})`)
    expect(planned.text).toMatch(/Lifecycle Writer[^<]*would need a person instead of being allowed/)
    expect(planned.text).toContain('1 would be decided otherwise')
    expect(planned.text).toContain('allowed \u2192 requires_approval: 1')
    expect(planned.text).toContain('<th scope="row">email.send_campaign</th>')

    const { plan, document } = applyForm(planned.text)
    expect(document).toContain('{ fact: recipients, op: ">", value: 50 }')
    const applied = await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, plan, document } })
    expect(applied.res.status).toBe(303)
    const after = await fetchConsole(applied.res.headers.get('location')!, { cookie: owner.cookie })
    expect(after.text).toContain('Applied 1 change')
    // The notice is the history's word for that version, not the URL's: a made-up version shows none.
    for (const made of ['999999', '7-1']) expect((await fetchConsole(`/console/policy?applied=${made}`, { cookie: owner.cookie })).text).not.toMatch(/Applied \d+ change/)
    expect(after.text).toMatch(/<li>Ask a person before any agent [^<]*more than 50 recipients/)
    expect(after.text).toMatch(/Rules version \d+, by Maya Chen/)

    // The agent's very next request is judged by the new rule; a small one still goes through.
    expect((await send(writer.credential, 120)).body.data.decision).toBe('requires_approval')
    expect((await send(writer.credential, 10)).body.data.decision).toBe('allowed')

    const { entries } = await listAudit((await getHarness()).sql, ws.id)
    const entry = entries.find((e) => e.action === 'policy.applied')!
    expect(entry.actor).toEqual({ kind: 'person', id: owner.person.id, name: 'Maya Chen' })

    // Applying the same plan again: the policy moved (by that very apply), so it is refused.
    const again = await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, plan, document } })
    expect(again.res.status).toBe(409)
    expect(again.text).toContain('The policy changed since this plan')
  }, 60_000)

  test('on a workspace whose agents have asked nothing yet, the backtest says there is nothing to decide again and points to the policy tests', async () => {
    const ws = await makeWorkspace()
    await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
    const owner = await signInAs(ws.id, 'owner', 'Ana Lima')
    const planned = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: ruleForm(owner.csrf) })
    expect(planned.res.status).toBe(200)
    expect(planned.text).toMatch(/No request was recorded since <time[^>]*>[^<]*<\/time>, so there is nothing to decide again yet\. After Apply, the <a href="#tests">policy tests<\/a> decide cases you write under the new policy\./)
    expect(planned.text).not.toContain('0 recorded requests decided again')
  }, 60_000)

  test("the policy tests' empty field shows a case to copy, written for one of the workspace's own agents, that passes as it is copied", async () => {
    const ws = await makeWorkspace()
    await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
    const owner = await signInAs(ws.id, 'owner', 'Ana Lima')
    const page = (await fetchConsole('/console/policy', { cookie: owner.cookie })).text
    expect(page).toContain('placeholder="cases:\n  - name: Test agent may not ads.adjust_budget\n    agent: Test agent\n    tool: ads\n    action: adjust_budget\n    facts: {}\n    expect: denied"')
    // Copied as it is, the case runs and passes.
    const example = unescape(/id="policy-cases"[^>]*placeholder="([^"]*)"/.exec(page)![1]!)
    const ran = await fetchConsole('/console/policy/test', { cookie: owner.cookie, form: { csrf: owner.csrf, cases: example } })
    expect(ran.text).toContain('ok: 1 passed, 0 failed.')
  }, 60_000)

  test('a stale plan is refused and nothing is applied; a bad document names its line and field', async () => {
    const { ws } = await workspaceWithRequest()
    const owner = await signInAs(ws.id, 'owner', 'Ana Lima')
    const first = applyForm((await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: ruleForm(owner.csrf, '50') })).text)
    const second = applyForm((await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: ruleForm(owner.csrf, '80') })).text)
    expect((await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...second } })).res.status).toBe(303)
    const stale = await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...first } })
    expect(stale.res.status).toBe(409)
    expect(stale.text).toContain('The policy changed since this plan')
    expect(stale.text).toContain('Nothing was applied.')
    const page = (await fetchConsole('/console/policy', { cookie: owner.cookie })).text
    expect(page).toContain('more than 80 recipients')
    expect(page).not.toContain('more than 50 recipients')
    expect(page.match(/Rules version \d+, by Ana Lima/g)).toHaveLength(1)

    const bad = first.document.replace('missingFacts:', 'colour: blue\nmissingFacts:')
    const refused = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { csrf: owner.csrf, document: bad } })
    expect(refused.res.status).toBe(400)
    expect(refused.text).toMatch(/policy line \d+, column \d+: colour: unknown field/)
    // The document as written stays in the editor, to be corrected.
    expect(refused.text).toContain('colour: blue')
    const unknownAgent = first.document.replace('agent: Lifecycle Writer', 'agent: Nobody')
    const named = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { csrf: owner.csrf, document: unknownAgent } })
    expect(named.res.status).toBe(400)
    expect(named.text).toMatch(/policy line \d+, column \d+: agents\[\d\]\.agent: no agent Nobody/)
    const badValue = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: ruleForm(owner.csrf, 'lots') })
    expect(badValue.res.status).toBe(400)
    expect(badValue.text).toContain('The recipients must be a whole number')
    // A fact is named in the refusal as the form's list words it, not by its name in the document.
    const badPercent = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { ...ruleForm(owner.csrf, 'ten'), fact: 'amountPercent' } })
    expect(badPercent.res.status).toBe(400)
    expect(badPercent.text).toContain('The change in percent must be a number of 0 or more (got &quot;ten&quot;).')
    // The rule's form as it was sent: the tool action and fact chosen, the value as typed.
    expect(badValue.text).toContain('<option value="email.send_campaign" selected>')
    expect(badValue.text).toContain('<option value="recipients" selected>')
    expect(badValue.text).toContain('name="value" inputmode="decimal" required value="lots" aria-describedby="policy-error"')
    const form = badValue.text.slice(badValue.text.indexOf('id="rule-h"'), badValue.text.indexOf('</form>', badValue.text.indexOf('id="rule-h"')))
    expect(form.match(/ selected>/g)).toHaveLength(4) // effect, target, agent (every agent), fact
  }, 60_000)

  test("a rule written without the id of the rule in force that says the same is told as replacing it, with the id that keeps it; the page's own document, with its ids, is no change", async () => {
    const { ws } = await workspaceWithRequest()
    const owner = await signInAs(ws.id, 'owner', 'Ana Lima')
    const first = applyForm((await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: ruleForm(owner.csrf, '50') })).text)
    expect((await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...first } })).res.status).toBe(303)
    const inForce = unescape(/<textarea id="policy-document" name="document"[^>]*>([\s\S]*?)<\/textarea>/.exec((await fetchConsole('/console/policy', { cookie: owner.cookie })).text)![1]!)
    const id = /- id: (rule_\w+)/.exec(inForce)?.[1]
    expect(id).toBeDefined()

    const same = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { csrf: owner.csrf, document: inForce } })
    expect(same.text).toContain('No changes: this document is the policy in force')
    expect(same.text).not.toContain('written without its id')

    const withoutId = inForce.replace(`- id: ${id}\n    effect:`, '- effect:')
    expect(withoutId).not.toContain(id!)
    const planned = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { csrf: owner.csrf, document: withoutId } })
    expect(planned.res.status).toBe(200)
    expect(planned.text).toContain('2 changes (rules version')
    expect(unescape(planned.text)).toContain(
      `<p class="caution">Note: rules[0] says what ${id} in force says but is written without its id, so it replaces that rule with a new one (past decisions keep naming ${id}). ` +
        `To keep the rule as it is, give it "id: ${id}" (the document this page opens with has every rule in force with its id).</p>`,
    )
  }, 60_000)

  test("the agent form changes an agent's risk level and ceilings; applied, the agent's next request is judged by them", async () => {
    const { ws, writer } = await workspaceWithRequest()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const form = { csrf: owner.csrf, edit: 'agent', agent: 'Lifecycle Writer', maxUnattendedRisk: 'high', amountPercent: '', recipients: '100', records: '' }
    const planned = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form })
    expect(planned.res.status).toBe(200)
    expect(planned.text).toMatch(/Lifecycle Writer[^<]*recipients[^<]*100/)
    expect(planned.text).toMatch(/Lifecycle Writer[^<]*would be denied instead of being allowed|Lifecycle Writer[^<]*would need a person instead of being allowed/)
    const applied = await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...applyForm(planned.text) } })
    expect(applied.res.status).toBe(303)
    expect((await send(writer.credential, 120)).body.data.decision).not.toBe('allowed')
    expect((await send(writer.credential, 90)).body.data.decision).toBe('allowed')
    // The agent's form starts from its values in force: submitting it unchanged changes nothing.
    const page = await fetchConsole('/console/policy', { cookie: owner.cookie })
    const its = page.text.slice(page.text.indexOf('<summary>Lifecycle Writer</summary>'))
    expect(its).toMatch(/<option value="high" selected>high risk<\/option>/)
    expect(its).toMatch(/name="recipients" inputmode="numeric" value="100"/)
    const wrong = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { ...form, maxUnattendedRisk: 'extreme' } })
    expect(wrong.res.status).toBe(400)
    expect(wrong.text).toContain('maxUnattendedRisk must be one of low, medium, high')
    // A refused ceiling is named as the form labels it, and that agent's form stays open as it was sent.
    const typo = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { ...form, maxUnattendedRisk: 'low', amountPercent: '12,5', records: '40' } })
    expect(typo.res.status).toBe(400)
    expect(typo.text).toContain('Lifecycle Writer&#39;s ceiling on the change in percent must be a number of 0 or more, or empty for none (got &quot;12,5&quot;).')
    const sent = typo.text.slice(typo.text.indexOf('<details open><summary>Lifecycle Writer</summary>'), typo.text.indexOf('</details>', typo.text.indexOf('<summary>Lifecycle Writer')))
    expect(sent).toContain('<option value="low" selected>low risk</option>')
    expect(sent).toContain('name="amountPercent" inputmode="decimal" value="12,5" aria-describedby="policy-error"')
    expect(sent).toContain('name="records" inputmode="numeric" value="40" aria-describedby="policy-error"')
    expect(sent).toContain('name="recipients" inputmode="numeric" value="100" aria-describedby="policy-error"')
  }, 60_000)

  test("the agent form changes what an agent may ask for, ticked as in force; applied, a newly allowed action is no longer denied for its permission or its data, and one unticked is", async () => {
    const { ws, writer } = await workspaceWithRequest()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const pause = () => authorize(writer.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_x', summary: 'Pause it', facts: {} })
    expect((await pause()).body.data.checks.find((c: { name: string }) => c.name === 'permission').passed).toBe(false)
    const page = await fetchConsole('/console/policy', { cookie: owner.cookie })
    const its = page.text.slice(page.text.indexOf('<summary>Lifecycle Writer</summary>'), page.text.indexOf('</details>', page.text.indexOf('<summary>Lifecycle Writer')))
    expect(its).toContain('<input type="hidden" name="permissions" value="shown">')
    expect(its).toMatch(/<input type="checkbox" name="allow" value="email\.send_campaign" checked> Send an email campaign \(\w+ risk\)<\/label>/)
    expect(its).toMatch(/<input type="checkbox" name="allow" value="ads\.pause_campaign"> Pause a campaign \(\w+ risk\)<\/label>/)

    const form = (allow: string[]) => {
      const f = new URLSearchParams({ csrf: owner.csrf, edit: 'agent', agent: 'Lifecycle Writer', permissions: 'shown', maxUnattendedRisk: 'high', amountPercent: '', recipients: '', records: '' })
      for (const a of allow) f.append('allow', a)
      return f
    }
    const planned = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: form(['email.send_campaign', 'ads.pause_campaign']) })
    expect(planned.res.status, planned.text.slice(0, 2000)).toBe(200)
    expect(planned.text).toContain('Lifecycle Writer may now pause a campaign (ads.pause_campaign).')
    expect((await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...applyForm(planned.text) } })).res.status).toBe(303)
    expect((await pause()).body.data.decision).toBe('allowed')

    // Unticked, an action is no longer the agent's; an unknown one is refused, the form kept as sent.
    const removed = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: form(['ads.pause_campaign']) })
    expect(removed.text).toContain('Lifecycle Writer may no longer send an email campaign (email.send_campaign).')
    expect((await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...applyForm(removed.text) } })).res.status).toBe(303)
    expect((await send(writer.credential, 10)).body.data.decision).toBe('denied')
    const unknown = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: form(['ads.pause_campaign', 'ads.launch_rockets']) })
    expect(unknown.res.status).toBe(400)
    expect(unknown.text).toContain('Lifecycle Writer may ask only for a tool action of the policy (got &quot;ads.launch_rockets&quot;).')
    expect(unknown.text).toMatch(/<details open><summary>Lifecycle Writer<\/summary>[\s\S]*?value="ads\.pause_campaign" checked>/)

    // A form without the permissions (as posted before they were shown) leaves them as they are.
    const { permissions: _, ...without } = Object.fromEntries(form([]))
    const kept = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { ...without, maxUnattendedRisk: 'low' } })
    expect(kept.text).toContain('Lifecycle Writer&#39;s highest risk without a person: high -&gt; low.')
    expect(kept.text).not.toContain('may no longer pause a campaign')
  }, 60_000)

  test("an agent whose data access is narrowed, given an action in the form, is given that action's data too, and the plan says so", async () => {
    const ws = await makeWorkspace()
    const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Narrow', dataAccess: ['segments'], maxUnattendedRisk: 'high' })
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const f = new URLSearchParams({ csrf: owner.csrf, edit: 'agent', agent: 'Narrow', permissions: 'shown', maxUnattendedRisk: 'high', amountPercent: '', recipients: '', records: '' })
    f.append('allow', 'email.send_campaign')
    f.append('allow', 'ads.pause_campaign')
    const planned = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: f })
    expect(planned.res.status, planned.text.slice(0, 2000)).toBe(200)
    expect(planned.text).toMatch(/Narrow&#39;s data access: segments -&gt; [^<]*campaigns/)
    expect((await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...applyForm(planned.text) } })).res.status).toBe(303)
    const asked = await authorize(agent.credential, { tool: 'ads', action: 'pause_campaign', resource: 'cmp_x', summary: 'Pause it', facts: {} })
    expect(asked.body.data.decision).toBe('allowed')
  }, 60_000)

  test("a retired agent is not on the page; its name, given to a new agent, is the new one's in the forms", async () => {
    const { ws } = await workspaceWithRequest()
    const { sql } = await getHarness()
    const old = await agentIn(ws.id, { allow: 'ads.pause_campaign', name: 'Pacer' })
    await retireAgent(sql, ws.id, old.id)
    const fresh = await agentIn(ws.id, { allow: 'ads.read_performance', name: 'Pacer' })
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const page = await fetchConsole('/console/policy', { cookie: owner.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text.match(/<summary>Pacer<\/summary>/g)).toHaveLength(1)
    expect(page.text).toContain('<option value="Pacer">Pacer</option>')
    expect(page.text).not.toContain('Pacer may pause a campaign')
    // The form for Pacer changes the agent the page shows: the new one.
    const form = { csrf: owner.csrf, edit: 'agent', agent: 'Pacer', maxUnattendedRisk: 'low', amountPercent: '', recipients: '', records: '' }
    const planned = await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form })
    expect(planned.res.status, planned.text.slice(0, 2000)).toBe(200)
    const applied = await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, ...applyForm(planned.text) } })
    expect(applied.res.status).toBe(303)
    const risks = await sql<{ id: string; max_unattended_risk: string }[]>`SELECT id, max_unattended_risk FROM agents WHERE workspace_id = ${ws.id} AND name = 'Pacer'`
    expect(Object.fromEntries(risks.map((r) => [r.id, r.max_unattended_risk]))).toEqual({ [old.id]: 'medium', [fresh.id]: 'low' })
  }, 60_000)

  test('the policy tests run from the page under the policy in force, recording nothing', async () => {
    const { ws } = await workspaceWithRequest()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const cases = [
      '- { name: a big send goes out, agent: Lifecycle Writer, tool: email, action: send_campaign, facts: { recipients: 120 }, expect: allowed }',
      '- { name: it may not pause ads, agent: Lifecycle Writer, tool: ads, action: pause_campaign, expect: allowed }',
    ].join('\n')
    const ran = await fetchConsole('/console/policy/test', { cookie: owner.cookie, form: { csrf: owner.csrf, cases } })
    expect(ran.res.status).toBe(200)
    expect(ran.text).toContain('FAIL: 1 passed, 1 failed.')
    expect(ran.text).toContain('ok a big send goes out: allowed')
    expect(ran.text).toMatch(/FAIL it may not pause ads: expected allowed, got denied \(failing: [^)]*permission/)
    const wrong = await fetchConsole('/console/policy/test', { cookie: owner.cookie, form: { csrf: owner.csrf, cases: '- { name: x, agent: Nobody, tool: email, action: send_campaign, expect: allowed }' } })
    expect(wrong.res.status).toBe(400)
    expect(wrong.text).toMatch(/cases line 1, column \d+: case 1 &quot;x&quot;: no agent &quot;Nobody&quot;/)
  }, 60_000)

  test('approvers and viewers read the policy and change nothing, even posting the forms by hand; a form without the CSRF token does nothing', async () => {
    const { ws } = await workspaceWithRequest()
    const owner = await signInAs(ws.id, 'owner', 'Maya Chen')
    const { plan, document } = applyForm((await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: ruleForm(owner.csrf) })).text)
    for (const role of ['approver', 'viewer'] as const) {
      const them = await signInAs(ws.id, role, `Kenji ${role}`)
      const page = await fetchConsole('/console/policy', { cookie: them.cookie })
      expect(page.res.status).toBe(200)
      expect(page.text).toContain('Lifecycle Writer may send an email campaign')
      expect(page.text).toContain('an owner plans and applies changes')
      expect(page.text).not.toContain('action="/console/policy/plan"')
      expect(page.text).not.toContain('action="/console/policy/test')
      for (const [path, form] of [
        ['/console/policy/plan', ruleForm(them.csrf)],
        ['/console/policy/apply', { csrf: them.csrf, plan, document }],
        ['/console/policy/test', { csrf: them.csrf, cases: '- { name: x, agent: Lifecycle Writer, tool: email, action: send_campaign, expect: allowed }' }],
      ] as const) {
        const refused = await fetchConsole(path, { cookie: them.cookie, form })
        expect(refused.res.status).toBe(403)
        expect(refused.text).toContain('an owner plans, applies and tests it')
      }
    }
    expect((await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { plan, document } })).res.status).toBe(403)
    // A document is larger than the console's other forms (16 KiB): the policy's forms take it, the others still refuse it.
    const long = `${document}\n# ${'x'.repeat(20_000)}\n`
    expect((await fetchConsole('/console/policy/plan', { cookie: owner.cookie, form: { csrf: owner.csrf, document: long } })).res.status).toBe(200)
    expect((await fetchConsole('/console/agents', { cookie: owner.cookie, form: { csrf: owner.csrf, switch: 'stop', reason: 'x'.repeat(20_000) } })).res.status).toBe(413)
    expect((await fetchConsole('/console/policy/apply', { form: { csrf: owner.csrf, plan, document } })).res.status).toBe(401)
    // Nothing was applied by any of them: the owner's plan still holds.
    expect((await fetchConsole('/console/policy/apply', { cookie: owner.cookie, form: { csrf: owner.csrf, plan, document } })).res.status).toBe(303)
  }, 60_000)
})
