import { describe, expect, test } from 'bun:test'
import { parsePolicy, POLICY_MAX_BYTES } from '../../server/src/domain/agent-policy-document.ts'
import { documentErrorLine } from '../../server/src/domain/document-text.ts'

/**
 * The agent policy document read from real YAML and JSON texts: a good document parses to what it
 * says; each kind of mistake is one error naming its line, column and field path.
 */

const GOOD = `# yaml-language-server: $schema=./agent-policy.schema.json
tools:
  - key: github
    name: GitHub
    description: Issues and pull requests of the connected repositories.
    actions:
      - { key: create_issue, name: Open an issue, risk: low, dataUsed: [repositories], reversible: true }
agents:
  - agent: Budget Pacer
    allow: [ads.adjust_budget, ads.pause_campaign]
    dataAccess: [campaigns, ad_spend]
    maxUnattendedRisk: medium
    ceilings: { amountMinor: { USD: 50000, EUR: 45000 }, amountPercent: 20, recipients: 5000, records: 1000 }
missingFacts: require_approval
rules:
  - id: rule_01abc
    effect: require_approval
    match: [{ tool: ads, action: adjust_budget }]
    agents: [Budget Pacer]
    when:
      - { fact: amountPercent, op: '>', value: 15 }
      - { fact: amountMinor, op: '>=', value: 10000, currency: USD }
      - { count: allowed, window: 24h, op: '>=', value: 5 }
  - effect: deny
    match: [{ tool: contacts }]
`

/** The errors of a text that must not parse, each as its one line. */
function errorsOf(text: string): string[] {
  const r = parsePolicy(text)
  if (r.ok) throw new Error('expected the policy to be refused')
  return r.errors.map(documentErrorLine)
}

/** GOOD with one line replaced (lines count from 1). */
const withLine = (n: number, line: string) => GOOD.split('\n').map((l, i) => (i === n - 1 ? line : l)).join('\n')

describe('parsePolicy', () => {
  test('a good YAML document parses to exactly what it says', () => {
    const r = parsePolicy(GOOD)
    if (!r.ok) throw new Error(r.errors.map(documentErrorLine).join('\n'))
    expect(r.policy).toEqual({
      tools: [{ key: 'github', name: 'GitHub', description: 'Issues and pull requests of the connected repositories.', actions: [{ key: 'create_issue', name: 'Open an issue', risk: 'low', dataUsed: ['repositories'], reversible: true }] }],
      agents: [{ agent: 'Budget Pacer', allow: ['ads.adjust_budget', 'ads.pause_campaign'], dataAccess: ['campaigns', 'ad_spend'], maxUnattendedRisk: 'medium', ceilings: { amountMinor: { USD: 50000, EUR: 45000 }, amountPercent: 20, recipients: 5000, records: 1000 } }],
      missingFacts: 'require_approval',
      rules: [
        {
          id: 'rule_01abc',
          effect: 'require_approval',
          match: [{ tool: 'ads', action: 'adjust_budget' }],
          agents: ['Budget Pacer'],
          when: [
            { fact: 'amountPercent', op: '>', value: 15 },
            { fact: 'amountMinor', op: '>=', value: 10000, currency: 'USD' },
            { count: 'allowed', window: '24h', op: '>=', value: 5 },
          ],
        },
        { effect: 'deny', match: [{ tool: 'contacts' }] },
      ],
    })
  })

  test('the same document in JSON parses to the same value', () => {
    const yaml = parsePolicy(GOOD)
    if (!yaml.ok) throw new Error('GOOD must parse')
    expect(parsePolicy(JSON.stringify(yaml.policy, null, 2))).toEqual(yaml)
  })

  test('a wrong op names its line, column and the path of the field', () => {
    expect(errorsOf(withLine(21, "      - { fact: amountPercent, op: '=>', value: 15 }"))).toEqual([
      'line 21, column 36: rules[0].when[0].op: must be one of >, >=, <, <=, =',
    ])
  })

  test('an unknown field is named at its key', () => {
    expect(errorsOf(withLine(5, '    description: Issues.\n    colour: blue'))).toEqual(['line 6, column 5: tools[0].colour: unknown field (fields here: key, name, description, actions)'])
  })

  test('a missing field is named at the object that lacks it', () => {
    expect(errorsOf(withLine(7, '      - { key: create_issue, name: Open an issue, risk: low, dataUsed: [repositories] }'))).toEqual([
      'line 7, column 9: tools[0].actions[0].reversible: is required',
    ])
  })

  test('a wrong risk, key, tool.action, currency and number each name their place', () => {
    expect(errorsOf(withLine(7, '      - { key: Create, name: Open an issue, risk: huge, dataUsed: [repositories], reversible: yes }'))).toEqual([
      'line 7, column 16: tools[0].actions[0].key: must be 1 to 40 of a-z, 0-9 and _, starting with a letter',
      'line 7, column 51: tools[0].actions[0].risk: must be one of low, medium, high',
      'line 7, column 95: tools[0].actions[0].reversible: must be a boolean',
    ])
    expect(errorsOf(withLine(10, '    allow: [ads.adjust_budget, adjust_budget]'))).toEqual([
      'line 10, column 32: agents[0].allow[1]: must be tool.action, e.g. ads.pause_campaign',
    ])
    expect(errorsOf(withLine(13, '    ceilings: { amountMinor: { USD: 50000, XYZ: 1 }, recipients: 2.5 }'))).toEqual([
      'line 13, column 44: agents[0].ceilings.amountMinor.XYZ: is not an ISO 4217 currency code',
      'line 13, column 66: agents[0].ceilings.recipients: must be a whole number',
    ])
  })

  test('a condition names the fact it does not know, or what it lacks', () => {
    expect(errorsOf(withLine(21, "      - { fact: colour, op: '>', value: 15 }"))).toEqual([
      'line 21, column 17: rules[0].when[0].fact: must be one of amountMinor, currency, amountPercent, recipients, records, increase',
    ])
    expect(errorsOf(withLine(21, "      - { op: '>', value: 15 }"))).toEqual([
      'line 21, column 9: rules[0].when[0]: needs fact (a condition on a stated fact) or count (a count of allowed requests)',
    ])
    expect(errorsOf(withLine(22, "      - { fact: amountMinor, op: '>=', value: 10000 }"))).toEqual(['line 22, column 9: rules[0].when[1].currency: is required'])
    expect(errorsOf(withLine(23, "      - { count: allowed, window: 1 day, op: '>=', value: 5 }"))).toEqual([
      'line 23, column 35: rules[0].when[2].window: must be a duration such as 30m, 24h or 7d',
    ])
    expect(errorsOf(withLine(23, "      - { count: refused, window: 24h, op: '>=', value: 5 }"))).toEqual(['line 23, column 18: rules[0].when[2].count: must be allowed'])
    expect(errorsOf(withLine(23, "      - { count: allowed, window: 0h, op: '>=', value: 5 }"))).toEqual([
      'line 23, column 35: rules[0].when[2].window: must be longer than 0: a count over no time is always 0; a duration such as 30m, 24h or 7d',
    ])
  })

  test('an effect, missingFacts or an empty match outside their values are refused', () => {
    expect(errorsOf(withLine(14, 'missingFacts: sometimes'))).toEqual(['line 14, column 15: missingFacts: must be one of require_approval, ignore'])
    expect(errorsOf(withLine(25, '    match: []'))).toEqual(['line 25, column 12: rules[1].match: must list at least one { tool, action }'])
    expect(errorsOf(withLine(19, '    agents: []'))).toEqual(['line 19, column 13: rules[0].agents: must list at least one agent (its name or id), or be left out to apply to every agent'])
    expect(errorsOf(withLine(24, '  - effect: allow'))).toEqual(['line 24, column 13: rules[1].effect: must be one of deny, require_approval'])
  })

  test('a key given twice is named where it is given again', () => {
    const actions = GOOD.replace('agents:\n', '      - { key: create_issue, name: Again, risk: high, dataUsed: [], reversible: false }\nagents:\n')
    expect(errorsOf(actions)).toEqual(['line 8, column 16: tools[0].actions[1].key: action github.create_issue is given twice'])
    const tools = GOOD.replace('agents:\n', '  - key: github\n    name: Again\n    description: x\n    actions: []\nagents:\n')
    expect(errorsOf(tools)).toEqual(['line 8, column 10: tools[1].key: tool github is given twice'])
  })

  test('a YAML syntax error names its line', () => {
    expect(errorsOf('tools:\n  - key: a\n   name: b\n')).toEqual([expect.stringMatching(/^line 3, column \d+: not valid YAML or JSON: /)])
    expect(errorsOf('tools: []\ntools: []\n')).toEqual(['line 2, column 1: not valid YAML or JSON: Map keys must be unique'])
    // An unclosed [ is told as one, not as an indentation to check (the yaml package files it as BAD_INDENT).
    expect(errorsOf('version: 1\nagents: [a, b\nrules: []\n')).toEqual([
      expect.stringMatching(/^line 3, column 1: not valid YAML or JSON: [^\n]+ \(a list written \[a, b lacks its closing \]: close it on the line where it starts, or write it as one item a line\)$/),
    ])
  })

  test('a document that is not a mapping, or lacks tools, says so', () => {
    expect(errorsOf('')).toEqual(['line 1, column 1: the policy must be a mapping with tools (and agents, missingFacts, rules)'])
    expect(errorsOf('- tools\n')).toEqual(['line 1, column 1: the policy must be a mapping with tools (and agents, missingFacts, rules)'])
    expect(errorsOf('rules: []\n')).toEqual(['line 1, column 1: tools: is required'])
  })

  test('a text over 1 MiB is refused as too large before it is read', () => {
    const big = `tools: []\n# ${'x'.repeat(POLICY_MAX_BYTES)}\n`
    expect(errorsOf(big)).toEqual([`line 1, column 1: the policy is too large: ${POLICY_MAX_BYTES + 13} bytes, at most ${POLICY_MAX_BYTES} (1 MiB)`])
  })
})
