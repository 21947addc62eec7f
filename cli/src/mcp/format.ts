import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { ConnectionError, GrowthError, TimeoutError } from '@growth-service/sdk'
import { formatMoney, isMoney } from '../api/render.ts'

/**
 * What a tool call gives back: the answer as structured content (the API's data untouched: ids,
 * ISO times, amounts in minor units) and as short text a model reads well, YAML-like: `key: value`
 * lines, money in its currency's own format (`$1,234.50`, `¥5,000`), ids and times as the API
 * gives them, empty members left out.
 */

/** Members no model needs (every record of a workspace carries the same one). */
const SKIPPED = new Set(['workspaceId'])
/** Longer text is cut in the text (never in the structured content). */
const MAX_TEXT = 600

function scalar(v: unknown): string {
  if (typeof v === 'string') {
    const line = v.replace(/\s*\n\s*/g, ' ')
    return line.length > MAX_TEXT ? `${line.slice(0, MAX_TEXT - 1)}…` : line
  }
  if (isMoney(v)) return formatMoney(v)
  return JSON.stringify(v) ?? String(v)
}

const isEmpty = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.length === 0)
const isLeaf = (v: unknown) => v === null || typeof v !== 'object' || isMoney(v)

/** Any JSON value as indented lines. */
export function lines(value: unknown, indent = ''): string[] {
  if (isLeaf(value)) return [`${indent}${scalar(value)}`]
  if (Array.isArray(value)) {
    if (!value.length) return [`${indent}(none)`]
    return value.flatMap((item) => {
      const [first, ...rest] = lines(item, `${indent}  `)
      return [`${indent}- ${first!.trimStart()}`, ...rest]
    })
  }
  const out: string[] = []
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (SKIPPED.has(key) || isEmpty(v)) continue
    if (isLeaf(v)) out.push(`${indent}${key}: ${scalar(v)}`)
    else if (Array.isArray(v) && v.every(isLeaf)) out.push(`${indent}${key}: ${v.map(scalar).join(v.every((x) => typeof x === 'string' && /[.!?]$/.test(x)) ? ' ' : ', ')}`)
    else out.push(`${indent}${key}:`, ...lines(v, `${indent}  `))
  }
  return out.length ? out : [`${indent}(empty)`]
}

export const text = (parts: (string | string[] | undefined | false)[]) => parts.filter((p): p is string | string[] => Boolean(p)).flat().join('\n')

/** A successful call: structured content, and the text. */
export function answer(structured: Record<string, unknown>, body: string): CallToolResult {
  return { content: [{ type: 'text', text: body }], structuredContent: structured }
}

type ToolError = { code: string; message: string; requestId: string | null; status?: number; argument?: string; idempotencyKey?: string }

/**
 * A tool error (isError): the API's refusal with its envelope's code, message and request id; an
 * argument refused before anything was sent (named); or no answer at all.
 */
export function failure(error: ToolError): CallToolResult {
  const where = [error.status ? `${error.status} ${error.code}` : error.code, error.requestId ? `request ${error.requestId}` : undefined].filter(Boolean).join(', ')
  const lead = error.status ? 'Refused by the API' : error.argument ? `Bad argument ${error.argument}` : 'Failed'
  return {
    isError: true,
    content: [{ type: 'text', text: `${lead}: ${error.message} (${where})` }],
    structuredContent: { error },
  }
}

/** Whatever a call threw, as a tool error: the API's refusal, no answer, or a failure of our own. */
export function failureOf(err: unknown): CallToolResult {
  if (err instanceof TimeoutError) return failure({ code: 'timeout', message: err.message, requestId: null })
  if (err instanceof ConnectionError) return failure({ code: 'no_answer', message: `${err.message} Is the API running there?`, requestId: null })
  if (err instanceof GrowthError && err.status !== undefined) {
    return failure({ code: String(err.code ?? 'unknown'), message: err.message, requestId: err.requestId ?? null, status: err.status })
  }
  const message = err instanceof Error ? err.message : String(err)
  return failure({ code: 'internal', message: `growth mcp failed on this call: ${message || 'unexpected failure'}`, requestId: null })
}
