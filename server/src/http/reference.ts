import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The API reference page: Scalar (@scalar/api-reference) rendering /api/v1/openapi.json in the
 * browser. Everything the page loads comes from this server: the renderer's standalone bundle is
 * read from node_modules and served under /api/v1/reference/, and the Content-Security-Policy
 * lets the browser fetch nothing from anywhere else (no CDN, no fonts, no telemetry, no proxy).
 */
export const REFERENCE_PATH = '/api/v1/reference'

const OPENAPI_PATH = '/api/v1/openapi.json'
const TITLE = 'Growth Automation Service API reference'

/**
 * Scalar's configuration, chosen so that the page makes no request but to this server:
 * - withDefaultFonts: false: no @font-face from fonts.scalar.com (the system fonts are used);
 * - telemetry: false, and no proxyUrl: nothing is sent to Scalar's services or through its proxy;
 * - agent.disabled: no "Agent Scalar" chat (it is switched on by default on localhost and talks to
 *   Scalar's servers);
 * - hideClientButton, hideTestRequestButton: no built-in API client (it could send requests to other
 *   servers); showDeveloperTools 'never': no developer toolbar (it links to Scalar's dashboard).
 * Every tag and model is open, so the whole reference is on the page and the browser's find sees it.
 * authentication.preferredSecurityScheme: the workspace token (bearer) is the authentication the
 * page starts with, as almost every operation takes it (Scalar otherwise preselects none).
 */
const SCALAR_CONFIGURATION = {
  url: OPENAPI_PATH,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  hideClientButton: true,
  hideTestRequestButton: true,
  showDeveloperTools: 'never',
  metaData: { title: TITLE },
  defaultOpenAllTags: true,
  expandAllModelSections: true,
  authentication: { preferredSecurityScheme: 'WorkspaceToken' },
}

/** Only this server; styles inline (Scalar injects its CSS at run time); images and fonts may be data: URLs. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

type Asset = { body: Uint8Array<ArrayBuffer>; type: string; version: string }

const JS_TYPE = 'text/javascript; charset=utf-8'
const sources: Record<string, () => { body: Uint8Array<ArrayBuffer>; type: string }> = {
  'standalone.js': () => ({
    body: new Uint8Array(readFileSync(fileURLToPath(import.meta.resolve('@scalar/api-reference/browser/standalone.js')))),
    type: JS_TYPE,
  }),
  'init.js': () => ({
    body: new TextEncoder().encode(`Scalar.createApiReference('#app', ${JSON.stringify(SCALAR_CONFIGURATION)})\n`),
    type: JS_TYPE,
  }),
}

/** Each asset is read once, when first asked for, and kept in memory with a content hash for its URL. */
const assets = new Map<string, Asset>()

function asset(name: string): Asset | undefined {
  if (!Object.hasOwn(sources, name)) return undefined
  let found = assets.get(name)
  if (!found) {
    const { body, type } = sources[name]!()
    found = { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 16) }
    assets.set(name, found)
  }
  return found
}

const assetUrl = (name: string) => `${REFERENCE_PATH}/${name}?v=${asset(name)!.version}`

/** GET /api/v1/reference: the HTML page that loads the renderer and points it at the OpenAPI document. */
export function referencePage(): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLE}</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>This reference needs JavaScript. The API is described by <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
<div id="app"></div>
<script src="${assetUrl('standalone.js')}"></script>
<script src="${assetUrl('init.js')}"></script>
</body>
</html>
`
  return new Response(html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  })
}

/** GET /api/v1/reference/<name>: a file the page loads, or undefined when there is no such file. */
export function referenceAsset(name: string): Response | undefined {
  const found = asset(name)
  if (!found) return undefined
  return new Response(found.body, {
    headers: {
      'Content-Type': found.type,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
