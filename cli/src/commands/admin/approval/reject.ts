import type { Command } from 'commander'
import { registerApprovalDecision } from './decide.ts'

/** growth admin approval reject ID */
export const registerApprovalReject = (approval: Command) => registerApprovalDecision(approval, 'reject')
