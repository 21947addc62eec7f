/**
 * @growth-service/sdk/tools/ai: a guarded tool for Vercel's AI SDK (`ai`, an optional peer
 * dependency). Nothing of the AI SDK is imported here: the adapter takes the tool `tool()` made and
 * gives back the same tool with its `execute` guarded, types and all.
 *
 *   import { tool } from 'ai'
 *   import { guardTool } from '@growth-service/sdk/tools/ai'
 *   const sendEmail = guardTool(
 *     tool({ description: 'Send an e-mail', inputSchema: z.object({ to: z.array(z.string()), subject: z.string() }),
 *            execute: async ({ to, subject }) => mailer.send(to, subject) }),
 *     { tool: 'email', action: 'send_campaign', facts: ({ to }) => ({ recipients: to.length }) },
 *   )
 *
 * `execute` asks the gateway first and reports after. A denial or a call waiting for a person throws
 * AgentDeniedError or ApprovalRequiredError, which the AI SDK hands the model as the tool's error:
 * their message is then what the model should read (told.ts): for a call waiting for a person, the
 * approval, the reason, that a person decides it in the console and that the model may not, not
 * the developer's sentence about `waitForApproval`. The call's abortSignal aborts it (reported cancelled).
 */
import { ApprovalRequiredError } from '../guard.ts'
import { type GuardedSpec, guarded } from './index.ts'
import { toldToTheModel } from './told.ts'

export { AgentDeniedError, ApprovalRequiredError, type Facts, type GuardedSpec } from './index.ts'

/** The AI SDK's execute: (input, { toolCallId, messages, abortSignal }) => output. */
type AiExecute = (input: any, options: any) => unknown
type ArgsOf<T> = T extends { execute?: infer E } ? (E extends (...args: infer A) => unknown ? A : never) : never

export function guardTool<T extends { execute?: AiExecute }>(aiTool: T, spec: GuardedSpec<ArgsOf<T>>): T {
  const execute = aiTool?.execute
  if (typeof execute !== 'function') throw new TypeError('guardTool(tool, spec): the tool has no execute function, so there is nothing to guard')
  const run = guarded(execute as (...args: ArgsOf<T>) => unknown, {
    signal: (...args) => (args[1] as { abortSignal?: AbortSignal } | undefined)?.abortSignal,
    ...spec,
  })
  return {
    ...aiTool,
    execute: async (...args: ArgsOf<T>) => {
      try {
        return await run(...args)
      } catch (error) {
        // The AI SDK hands the model the error's message: a call waiting for a person keeps its error,
        // in the model's words (a denial's message is the gateway's reason already).
        if (error instanceof ApprovalRequiredError) error.message = toldToTheModel(error)!
        throw error
      }
    },
  }
}
