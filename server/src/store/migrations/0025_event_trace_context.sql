-- The trace context (a W3C traceparent) of the request that caused an event, when tracing was on:
-- the webhook delivery of the event links its span to that trace (docs/operations.md, "Traces").
-- Null when tracing is off. It names a trace, never anything of the request's content.
ALTER TABLE events ADD COLUMN traceparent text;
