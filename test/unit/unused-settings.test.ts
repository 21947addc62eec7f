import { expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'

/**
 * A setting set to no effect, as the others stand, is named (config.unused; the server and `growth
 * worker` log each as a warn at start: test/server/unused-settings.test.ts), and one that works is not.
 */
const base = { PORT: '0', HOST: '127.0.0.1' }
const unused = (env: Record<string, string>) => loadConfig({ ...base, ...env }).unused

test('mail settings without SMTP_URL are named, with where sign-in links come from instead', () => {
  expect(unused({ MAIL_FROM: 'growth@example.com' })).toEqual([
    'MAIL_FROM is set but SMTP_URL is not: the console sends no mail (sign-in links come from `growth admin person link`).',
  ])
  expect(unused({ MAIL_FROM: 'growth@example.com', MAIL_NOTICE_INTERVAL: '5m' })[0]).toStartWith('MAIL_FROM, MAIL_NOTICE_INTERVAL are set but SMTP_URL is not')
  expect(unused({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'growth@example.com', MAIL_NOTICE_INTERVAL: '5m' })).toEqual([])
  // Empty is unset, as everywhere in the config.
  expect(unused({ MAIL_FROM: '' })).toEqual([])
})

test('OpenTelemetry settings without an endpoint, and a ratio no sampler reads, are named', () => {
  expect(unused({ OTEL_SERVICE_NAME: 'growth-eu', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toEqual([
    'OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG are set but OTEL_EXPORTER_OTLP_ENDPOINT is not: no traces are made or sent.',
  ])
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }
  expect(unused({ ...endpoint, OTEL_TRACES_SAMPLER_ARG: '0.1' })).toEqual([
    'OTEL_TRACES_SAMPLER_ARG is set but OTEL_TRACES_SAMPLER is not set (parentbased_always_on: every trace): the ratio is read only by traceidratio and parentbased_traceidratio.',
  ])
  expect(unused({ ...endpoint, OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: '0.1' })[0]).toContain('OTEL_TRACES_SAMPLER is always_on')
  for (const sampler of ['traceidratio', 'parentbased_traceidratio']) expect(unused({ ...endpoint, OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: '0.1' })).toEqual([])
  expect(unused({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', OTEL_SERVICE_NAME: 'growth-eu' })).toEqual([])
  expect(unused({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc' })).toEqual(['OTEL_EXPORTER_OTLP_HEADERS is set but OTEL_EXPORTER_OTLP_ENDPOINT is not: no traces are made or sent.'])
})

test('METRICS_HOST without METRICS_PORT is named; nothing set names nothing', () => {
  expect(unused({ METRICS_HOST: '0.0.0.0' })).toEqual(['METRICS_HOST is set but METRICS_PORT is not: no metrics listener is started.'])
  expect(unused({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9464' })).toEqual([])
  expect(unused({})).toEqual([])
})
