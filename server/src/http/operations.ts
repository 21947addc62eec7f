import { API_OPERATIONS } from '../routes/index.ts'
import { metaOperations } from '../routes/meta.ts'
import type { Operation } from '../routes/operation.ts'
import { buildOpenApi } from './openapi/document.ts'

/** The whole table: the two public operations, then every operation of the API. Served, listed and described from here. */
export const operations: Operation[] = []
operations.push(...metaOperations(() => operations, buildOpenApi), ...API_OPERATIONS)
