import { AgentDeniedError, ApprovalRequiredError } from '../guard.ts'

/**
 * What a model reads when a guarded tool was not run (the adapters for the AI SDK and the OpenAI
 * Agents SDK): a call waiting for a person says which approval, why, who decides it and where, and
 * that the model must not try to; as growth mcp and growth mcp guard tell it. The errors' own
 * messages speak to the developer (of `waitForApproval`, an option a model cannot set).
 * Undefined for any other error.
 */
export function toldToTheModel(error: unknown): string | undefined {
  if (error instanceof ApprovalRequiredError && !error.expired && !error.timedOut) {
    return `The tool was not run: a person must approve it first (approval ${error.approvalId}). ${error.reason} A person of the workspace decides it, in the console's inbox: do not try to decide it yourself. Once it is approved, make the same call again and it runs once.`
  }
  if (error instanceof AgentDeniedError || error instanceof ApprovalRequiredError) return `The tool was not run. ${error.message}`
  return undefined
}
