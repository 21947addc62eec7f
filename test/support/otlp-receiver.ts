import { createServer, type Server } from 'node:http'
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader.js'

/**
 * A real OTLP/HTTP trace receiver for the tests (what a collector is to the service): a node:http
 * server taking POST /v1/traces, in protobuf (decoded with the official OpenTelemetry JS reader of
 * @opentelemetry/otlp-transformer, by the field numbers of opentelemetry/proto/trace/v1/trace.proto;
 * the package no longer ships generated definitions) or in JSON, keeping every span it is sent
 * (`keep: false`, for a benchmark: decoded and counted as a collector would, kept by no one, so the
 * receiver's memory and collector stay flat over hundreds of thousands of spans).
 */
export type ReceivedSpan = {
  service: string
  /** The attributes of the span's resource (service.name among them). */
  resource: Record<string, string | number | boolean>
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number
  attributes: Record<string, string | number | boolean>
  links: { traceId: string; spanId: string }[]
  status: number
}

export type OtlpReceiver = {
  url: string
  spans: ReceivedSpan[]
  /** How many spans were received (the kept ones and, with `keep: false`, the others). */
  received: number
  /** Content types of the requests received. */
  contentTypes: string[]
  /** The headers of each request received (names in lower case), in order. */
  headers: Record<string, string | string[] | undefined>[]
  /** Waits until `done(spans)` holds (polling the spans received), at most `ms`. */
  until(done: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>
  close(): Promise<void>
}

export async function startOtlpReceiver(opts: { keep?: boolean; port?: number } = {}): Promise<OtlpReceiver> {
  const keep = opts.keep ?? true
  let received = 0
  const spans: ReceivedSpan[] = []
  const contentTypes: string[] = []
  const headers: Record<string, string | string[] | undefined>[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const type = req.headers['content-type'] ?? ''
      if (keep) {
        contentTypes.push(type)
        headers.push({ ...req.headers })
      }
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end()
        return
      }
      try {
        const decoded = type.startsWith('application/json') ? fromJson(JSON.parse(body.toString('utf8'))) : fromProtobuf(new Uint8Array(body))
        received += decoded.length
        if (keep) spans.push(...decoded)
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err))
        return
      }
      res.writeHead(200, { 'content-type': type.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' }).end(type.startsWith('application/json') ? '{}' : '')
    })
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port ?? 0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get received() {
      return received
    },
    contentTypes,
    headers,
    async until(done, ms = 15_000) {
      const deadline = Date.now() + ms
      while (!done(spans)) {
        if (Date.now() > deadline) throw new Error(`the receiver did not get the spans awaited within ${ms} ms; it has: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`)
        await Bun.sleep(50)
      }
      return spans
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

// --- protobuf (opentelemetry/proto/collector/trace/v1 ExportTraceServiceRequest) ---------------------

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

/** Each field of a message: its number, and its reader (for a length-delimited field, one of its bytes). */
function fields(buf: Uint8Array, on: (field: number, wire: number, r: ProtobufReader) => void) {
  const r = new ProtobufReader(buf)
  while (!r.isAtEnd()) {
    const { fieldNumber, wireType } = r.readTag()
    const at = r.pos
    on(fieldNumber, wireType, r)
    if (r.pos === at) r.skip(wireType)
  }
}

function fromProtobuf(buf: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = []
  fields(buf, (f, _w, r) => {
    if (f !== 1) return
    // ResourceSpans: 1 resource, 2 scope_spans.
    let resource: Record<string, string | number | boolean> = {}
    const scoped: Uint8Array[] = []
    fields(r.readBytes(), (f2, _w2, r2) => {
      if (f2 === 1) resource = keyValues(r2.readBytes(), 1)
      else if (f2 === 2) scoped.push(r2.readBytes())
    })
    // ScopeSpans: 2 spans.
    for (const s of scoped) fields(s, (f3, _w3, r3) => void (f3 === 2 && out.push(span(r3.readBytes(), resource))))
  })
  return out
}

function span(buf: Uint8Array, resource: Record<string, string | number | boolean>): ReceivedSpan {
  const s: ReceivedSpan = { service: String(resource['service.name'] ?? ''), resource, traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, attributes: {}, links: [], status: 0 }
  fields(buf, (f, _w, r) => {
    if (f === 1) s.traceId = hex(r.readBytes())
    else if (f === 2) s.spanId = hex(r.readBytes())
    else if (f === 4) s.parentSpanId = hex(r.readBytes())
    else if (f === 5) s.name = r.readString()
    else if (f === 6) s.kind = r.readVarint()
    else if (f === 9) Object.assign(s.attributes, keyValue(r.readBytes()))
    else if (f === 13) {
      const link = { traceId: '', spanId: '' }
      fields(r.readBytes(), (lf, _lw, lr) => {
        if (lf === 1) link.traceId = hex(lr.readBytes())
        else if (lf === 2) link.spanId = hex(lr.readBytes())
      })
      s.links.push(link)
    } else if (f === 15) fields(r.readBytes(), (sf, _sw, sr) => void (sf === 3 && (s.status = sr.readVarint())))
  })
  return s
}

/** The KeyValues at field `field` of a message (a Resource's attributes). */
function keyValues(buf: Uint8Array, field: number): Record<string, string | number | boolean> {
  const out = {}
  fields(buf, (f, _w, r) => void (f === field && Object.assign(out, keyValue(r.readBytes()))))
  return out
}

/** KeyValue: 1 key, 2 AnyValue (1 string, 2 bool, 3 int, 4 double). */
function keyValue(buf: Uint8Array): Record<string, string | number | boolean> {
  let key = ''
  let value: string | number | boolean = ''
  fields(buf, (f, _w, r) => {
    if (f === 1) key = r.readString()
    else if (f === 2) {
      const any = r.readBytes()
      fields(any, (vf, _vw, vr) => {
        if (vf === 1) value = vr.readString()
        else if (vf === 2) value = vr.readVarint() === 1
        else if (vf === 3) value = vr.readVarint()
        else if (vf === 4) {
          // fixed64, little-endian: the reader skips it, the bytes are read here.
          const at = vr.pos
          vr.skip(1)
          value = new DataView(any.buffer, any.byteOffset + at, 8).getFloat64(0, true)
        }
      })
    }
  })
  return { [key]: value }
}

// --- JSON (the same messages in OTLP's JSON mapping: ids in hex) -------------------------------------

type JsonValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number }
type JsonKv = { key: string; value: JsonValue }

function fromJson(body: { resourceSpans?: { resource?: { attributes?: JsonKv[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] }): ReceivedSpan[] {
  const attrs = (kvs: JsonKv[] = []) =>
    Object.fromEntries(kvs.map((kv) => [kv.key, kv.value.stringValue ?? kv.value.boolValue ?? (kv.value.intValue !== undefined ? Number(kv.value.intValue) : kv.value.doubleValue ?? '')]))
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const resource = attrs(rs.resource?.attributes)
    const service = String(resource['service.name'] ?? '')
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        service,
        resource,
        traceId: String(s.traceId),
        spanId: String(s.spanId),
        parentSpanId: String(s.parentSpanId ?? ''),
        name: String(s.name),
        kind: Number(s.kind),
        attributes: attrs(s.attributes as JsonKv[]),
        links: ((s.links as { traceId: string; spanId: string }[]) ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        status: Number((s.status as { code?: number })?.code ?? 0),
      })),
    )
  })
}
