-- GET /revenue sums a span's orders per currency and channel. Summing the orders themselves reads
-- every order of the span, so the cost grew with the workspace's sales. Instead the orders are
-- rolled up per UTC month, day, hour and minute (per currency and channel), kept by statement
-- triggers in the transaction that writes the orders. A span is read as whole months, then whole
-- days, hours and minutes at its two ends, and only the orders of the two partial minutes at its
-- very edges (store/revenue.ts, revenuePieces): at most ~240 rollup rows per currency and channel
-- for any span up to 366 days, plus two minutes' orders, however many orders the workspace holds.
CREATE TABLE revenue_rollups (
  workspace_id  text NOT NULL REFERENCES workspaces,
  grain         text NOT NULL CHECK (grain IN ('month', 'day', 'hour', 'minute')),
  bucket        timestamptz NOT NULL,    -- the start of the grain's UTC span
  currency      char(3) NOT NULL,
  channel       text,                    -- orders.attributed_channel: null when not traced to marketing
  orders        bigint NOT NULL CHECK (orders > 0),
  total         bigint NOT NULL CHECK (total >= 0)
);
CREATE UNIQUE INDEX revenue_rollups_key ON revenue_rollups (workspace_id, grain, bucket, currency, channel) NULLS NOT DISTINCT;

-- The grains, one row each; every order counts once in each.
CREATE FUNCTION revenue_grains() RETURNS TABLE (grain text) LANGUAGE sql IMMUTABLE AS $$
  VALUES ('month'), ('day'), ('hour'), ('minute')
$$;

-- Takes out what the old rows held (DELETE, UPDATE: first the rollups left with no orders are
-- removed, then the others lowered), then adds what the new rows hold (INSERT, UPDATE). A rollup
-- never holds zero orders, so a read sees only buckets that have some.
CREATE FUNCTION revenue_rollups_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM revenue_rollups r
    USING (SELECT o.workspace_id, g.grain, date_trunc(g.grain, o.placed_at, 'UTC') AS bucket, o.currency,
                  o.attributed_channel AS channel, count(*) AS orders
           FROM removed o CROSS JOIN revenue_grains() g GROUP BY 1, 2, 3, 4, 5) d
    WHERE r.workspace_id = d.workspace_id AND r.grain = d.grain AND r.bucket = d.bucket
      AND r.currency = d.currency AND r.channel IS NOT DISTINCT FROM d.channel AND d.orders >= r.orders;
    UPDATE revenue_rollups r SET orders = r.orders - d.orders, total = r.total - d.total
    FROM (SELECT o.workspace_id, g.grain, date_trunc(g.grain, o.placed_at, 'UTC') AS bucket, o.currency,
                 o.attributed_channel AS channel, count(*) AS orders, sum(o.amount_minor) AS total
          FROM removed o CROSS JOIN revenue_grains() g GROUP BY 1, 2, 3, 4, 5) d
    WHERE r.workspace_id = d.workspace_id AND r.grain = d.grain AND r.bucket = d.bucket
      AND r.currency = d.currency AND r.channel IS NOT DISTINCT FROM d.channel AND d.orders < r.orders;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO revenue_rollups AS r (workspace_id, grain, bucket, currency, channel, orders, total)
    SELECT o.workspace_id, g.grain, date_trunc(g.grain, o.placed_at, 'UTC'), o.currency, o.attributed_channel,
           count(*), sum(o.amount_minor)
    FROM added o CROSS JOIN revenue_grains() g
    GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (workspace_id, grain, bucket, currency, channel)
      DO UPDATE SET orders = r.orders + EXCLUDED.orders, total = r.total + EXCLUDED.total;
  END IF;
  RETURN NULL;
END $$;

-- A workspace's rollups recomputed from its orders (the backfill below; the scale seed, which loads
-- with triggers off, calls every rebuild_<name>_rollups function).
CREATE FUNCTION rebuild_revenue_rollups(ws text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM revenue_rollups WHERE workspace_id = ws;
  INSERT INTO revenue_rollups (workspace_id, grain, bucket, currency, channel, orders, total)
  SELECT o.workspace_id, g.grain, date_trunc(g.grain, o.placed_at, 'UTC'), o.currency, o.attributed_channel,
         count(*), sum(o.amount_minor)
  FROM orders o CROSS JOIN revenue_grains() g
  WHERE o.workspace_id = ws
  GROUP BY 1, 2, 3, 4, 5;
$$;

-- No order is written while the rollups are filled from what exists, so they start exact.
LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER revenue_rollups_on_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION revenue_rollups_kept();
CREATE TRIGGER revenue_rollups_on_update AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION revenue_rollups_kept();
CREATE TRIGGER revenue_rollups_on_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION revenue_rollups_kept();

SELECT rebuild_revenue_rollups(workspace_id) FROM (SELECT DISTINCT workspace_id FROM orders) w;
