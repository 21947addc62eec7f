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

-- GET /opportunities shows how many signals speak for each opportunity: a counter on the
-- opportunity, kept by triggers on signals in the writing transaction, instead of counting the
-- signals of every opportunity of a page on each read. A signal may name an opportunity written
-- after it (no foreign key binds them): a new opportunity starts from the signals already naming it.
ALTER TABLE opportunities ADD COLUMN signal_count integer NOT NULL DEFAULT 0;

-- Moves the counters by how many signals name each opportunity in `added` minus in `removed`.
CREATE FUNCTION opportunity_signals_move(moves jsonb) RETURNS void LANGUAGE sql AS $$
  UPDATE opportunities o SET signal_count = o.signal_count + d.n
  FROM (SELECT m->>'w' AS workspace_id, m->>'o' AS opportunity_id, sum((m->>'n')::int) AS n
        FROM jsonb_array_elements(moves) m GROUP BY 1, 2) d
  WHERE o.workspace_id = d.workspace_id AND o.id = d.opportunity_id AND d.n <> 0
$$;

CREATE FUNCTION opportunity_signals_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM opportunity_signals_move((SELECT jsonb_agg(jsonb_build_object('w', workspace_id, 'o', opportunity_id, 'n', 1))
                                    FROM added WHERE opportunity_id IS NOT NULL));
  RETURN NULL;
END $$;

CREATE FUNCTION opportunity_signals_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM opportunity_signals_move((SELECT jsonb_agg(jsonb_build_object('w', workspace_id, 'o', opportunity_id, 'n', -1))
                                    FROM removed WHERE opportunity_id IS NOT NULL));
  RETURN NULL;
END $$;

CREATE FUNCTION opportunity_signals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM opportunity_signals_move((
    SELECT jsonb_agg(m) FROM (
      SELECT jsonb_build_object('w', r.workspace_id, 'o', r.opportunity_id, 'n', -1) AS m
      FROM removed r JOIN added a ON a.workspace_id = r.workspace_id AND a.id = r.id
      WHERE r.opportunity_id IS NOT NULL AND r.opportunity_id IS DISTINCT FROM a.opportunity_id
      UNION ALL
      SELECT jsonb_build_object('w', a.workspace_id, 'o', a.opportunity_id, 'n', 1)
      FROM removed r JOIN added a ON a.workspace_id = r.workspace_id AND a.id = r.id
      WHERE a.opportunity_id IS NOT NULL AND r.opportunity_id IS DISTINCT FROM a.opportunity_id) x));
  RETURN NULL;
END $$;

CREATE FUNCTION opportunity_signals_initial() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE opportunities o SET signal_count = n.n
  FROM (SELECT a.workspace_id, a.id, count(*) AS n FROM added a
        JOIN signals s ON s.workspace_id = a.workspace_id AND s.opportunity_id = a.id
        GROUP BY a.workspace_id, a.id) n
  WHERE o.workspace_id = n.workspace_id AND o.id = n.id;
  RETURN NULL;
END $$;

LOCK TABLE signals, opportunities IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER opportunity_signals_on_insert AFTER INSERT ON signals
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION opportunity_signals_added();
CREATE TRIGGER opportunity_signals_on_delete AFTER DELETE ON signals
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION opportunity_signals_removed();
CREATE TRIGGER opportunity_signals_on_update AFTER UPDATE ON signals
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION opportunity_signals_changed();
CREATE TRIGGER opportunity_signals_on_new_opportunity AFTER INSERT ON opportunities
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION opportunity_signals_initial();

UPDATE opportunities o SET signal_count = n.n
FROM (SELECT workspace_id, opportunity_id, count(*) AS n FROM signals WHERE opportunity_id IS NOT NULL GROUP BY 1, 2) n
WHERE o.workspace_id = n.workspace_id AND o.id = n.opportunity_id;

-- An open opportunity past its expiry counts as expired. GET /opportunities records it so
-- (store/opportunities.ts expireDue) before reading a status in worth order, finding the ones due
-- here; before, the expired list read every open opportunity to find them, the open list skipped them.
CREATE INDEX opportunities_expiring ON opportunities (workspace_id, expires_at) WHERE status = 'open';

-- An agent asking again for what waits on (or was given) an approval: found by the digest of its
-- params, not by reading every approval-bound request of that agent and action ever made.
DROP INDEX agent_requests_with_approval;
CREATE INDEX agent_requests_with_approval ON agent_requests (workspace_id, agent_id, tool, action, params_digest)
  WHERE approval_id IS NOT NULL;
