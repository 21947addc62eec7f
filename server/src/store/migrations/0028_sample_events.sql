-- A sample of an event type sent to one endpoint (`growth admin webhook test ID --event TYPE`,
-- docs/webhooks.md "Samples"): delivered like any event, but it is not something that happened, so
-- the workspace's event stream (GET /events, `growth events tail`, `growth listen`, the console's
-- live updates) does not show it. The test event (webhook.test) is not a sample: it did happen.
ALTER TABLE events ADD COLUMN sample boolean NOT NULL DEFAULT false;
