/**
 * @growth-service/sdk/tools/openai-agents: a guarded function tool for the OpenAI Agents SDK
 * (`@openai/agents`, an optional peer dependency). Nothing of it is imported here: pass its `tool`
 * function, the options you would give it, and what the gateway needs to know.
 *
 *   import { tool } from '@openai/agents'
 *   import { guardedTool } from '@growth-service/sdk/tools/openai-agents'
 *   const sendEmail = guardedTool(tool, {
 *     name: 'send_email', description: 'Send an e-mail',
 *     parameters: z.object({ to: z.array(z.string()), subject: z.string() }),
 *     execute: async ({ to, subject }: { to: string[]; subject: string }) => mailer.send(to, subject),
 *   }, { tool: 'email', action: 'send_campaign', facts: ({ to }) => ({ recipients: to.length }) })
 *
 * The tool keeps the type the Agents SDK's `tool` gives; type `execute`'s input yourself (e.g.
 * `z.infer<typeof schema>`), since the options are checked here before the Agents SDK sees them.
 * `execute` asks the gateway first and reports after. A denial or a call waiting for a person
 * throws AgentDeniedError or ApprovalRequiredError. Unless the options set their own
 * `errorFunction`, the model is told the gateway's reason for those two (for a call waiting for a
 * person, the approvalId, that a person decides it and that the model may not), and the Agents SDK's
 * usual sentence for any other error.
 */
import { type GuardedSpec, guarded } from './index.ts'
import { toldToTheModel } from './told.ts'

export { AgentDeniedError, ApprovalRequiredError, type Facts, type GuardedSpec } from './index.ts'

/** The Agents SDK's execute: (input, runContext, details) => result. */
type AgentsExecute = (input: any, ...rest: any[]) => unknown
type ArgsOf<O> = O extends { execute: (...args: infer A) => unknown } ? A : never

export function guardedTool<T extends (options: never) => unknown, O extends { execute: AgentsExecute }>(tool: T, options: O, spec: GuardedSpec<ArgsOf<O>>): ReturnType<T> {
  if (typeof tool !== 'function') throw new TypeError("guardedTool(tool, options, spec): pass the Agents SDK's tool function first")
  if (typeof options?.execute !== 'function') throw new TypeError('guardedTool(tool, options, spec): options.execute must be a function')
  const execute = guarded(options.execute as (...args: ArgsOf<O>) => unknown, {
    // The Agents SDK gives execute (input, runContext, details): details.signal ends the run.
    signal: (...args) => (args[2] as { signal?: AbortSignal } | undefined)?.signal,
    ...spec,
  })
  const errorFunction = 'errorFunction' in options ? {} : { errorFunction: toldToAgents }
  return (tool as unknown as (options: object) => ReturnType<T>)({ ...options, ...errorFunction, execute })
}

/** What the model reads when the tool threw: the gateway's answer (told.ts), or the Agents SDK's own sentence. */
function toldToAgents(_context: unknown, error: unknown): string {
  return toldToTheModel(error) ?? 'An error occurred while running the tool. Please try again.'
}
