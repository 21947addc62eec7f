import { type Html, html } from '../html.ts'

/** A tool as the permission choices show it: its actions by name and risk. */
type ToolChoices = { key: string; name: string; actions: readonly { key: string; name: string; risk: string }[] }

/**
 * The tool actions an agent may ask for, one fieldset a tool, each action a checkbox `allow` =
 * `tool.action` named in words with its risk, ticked when in `allowed`: the agent registration
 * form's and the policy page's agent form's, one markup.
 */
export function permissionChoices(tools: readonly ToolChoices[], allowed: ReadonlySet<string>): Html[] {
  return tools.map(
    (t) => html`<fieldset><legend>${t.name}: what it may do</legend>
${t.actions.map((x) => html`<label><input type="checkbox" name="allow" value="${t.key}.${x.key}"${allowed.has(`${t.key}.${x.key}`) ? html` checked` : null}> ${x.name} (${x.risk} risk)</label>`)}</fieldset>`,
  )
}
