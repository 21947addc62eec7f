import { z } from 'zod'
import { SCOPES } from '../core/caller.ts'

export const ApiIndex = z
  .object({
    version: z.literal('1').describe('The API version; the base path is /api/v1.'),
    openapi: z.string().describe('Where the OpenAPI 3.1 description is.'),
    reference: z.string().describe('Where the API reference page is (for people, in a browser).'),
    endpoints: z
      .array(
        z.object({
          method: z.enum(['GET', 'POST']).describe('HTTP method.'),
          path: z.string().describe('Full path, e.g. /api/v1/missions.'),
          operationId: z.string().describe('The operationId in the OpenAPI document.'),
          summary: z.string().describe('What it does, in a line.'),
          auth: z.enum(['public', 'workspace', 'agent']).describe('No credential, a workspace token, or an agent credential.'),
          scope: z.enum(SCOPES).nullable().describe('The scope a workspace token needs; null otherwise.'),
        }),
      )
      .describe('Every endpoint this deployment serves.'),
  })
  .describe('The endpoints this deployment serves.')

export const OpenApiDocument = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.')

export type ApiIndex = z.infer<typeof ApiIndex>
