-- Cost that does not grow with a workspace's data (test/server/query-cost.test.ts reads the plans).

-- The signals that speak for an opportunity: GET /opportunities counts them for each opportunity of
-- a page. 0004 creates this index; a database that lacks it (made before 0004 held it) gets it here.
CREATE INDEX IF NOT EXISTS signals_by_opportunity ON signals (workspace_id, opportunity_id);

-- The standing contacts allowance is a counter, not a count(*) on each write: how many contacts each
-- workspace holds. Triggers keep it in the transaction that inserts or deletes contacts, whoever
-- writes them (an import, the demo, a bulk load), one UPDATE per statement. Writers that add
-- contacts read it under the workspace's contacts-allowance lock (store/allowances.ts), so two
-- writers can never pass the allowance together.
CREATE TABLE contact_counts (
  workspace_id  text PRIMARY KEY REFERENCES workspaces,
  held          bigint NOT NULL DEFAULT 0 CHECK (held >= 0)
);

CREATE FUNCTION contact_counts_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_counts AS c (workspace_id, held)
  SELECT workspace_id, count(*) FROM added GROUP BY workspace_id
  ON CONFLICT (workspace_id) DO UPDATE SET held = c.held + EXCLUDED.held;
  RETURN NULL;
END $$;

CREATE FUNCTION contact_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE contact_counts c SET held = c.held - r.n
  FROM (SELECT workspace_id, count(*) AS n FROM removed GROUP BY workspace_id) r
  WHERE c.workspace_id = r.workspace_id;
  RETURN NULL;
END $$;

-- No contact is written while the counter is filled from what exists, so it starts exact.
LOCK TABLE contacts IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER contact_counts_on_insert AFTER INSERT ON contacts
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION contact_counts_added();
CREATE TRIGGER contact_counts_on_delete AFTER DELETE ON contacts
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION contact_counts_removed();

INSERT INTO contact_counts (workspace_id, held)
SELECT workspace_id, count(*) FROM contacts GROUP BY workspace_id;
