import type { Command } from 'commander'
import { registerApprovalDecision } from './decide.ts'

/** growth admin approval approve ID */
export const registerApprovalApprove = (approval: Command) => registerApprovalDecision(approval, 'approve')
