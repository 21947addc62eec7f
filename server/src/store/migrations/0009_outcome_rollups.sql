-- GET /outcomes from rollups kept on write, not from the whole history of decisions, findings and
-- tests on every read. Statement-level triggers with transition tables (as 0007 keeps
-- contact_counts) move the rollups in the transaction that writes the rows, whoever writes them;
-- rebuild_outcome_rollups(workspace) recomputes a workspace's from its rows (the backfill below, and
-- test/support/scale-seed.ts after a load with triggers off).
--
-- What the rollups hold, and what each grows with:
--   outcome_counts      one row a workspace: the section totals (constant);
--   prediction_rollups  measured predictions by author, by measure, by stated confidence in tenths
--                       (grows with the distinct authors and measures, at most 10 tenths);
--   turned_down_rollups rejected findings by reason (grows with the distinct reasons).
-- A group row whose count falls to zero is deleted, so the group rows are the groups there are
-- (what authorCount, measureCount and reasonCount count).

-- How a hypothesis is judged through its subject: the one definition, read by GET /experiments
-- (store/experiments.ts experimentColumns) and by the triggers below. The subject of an
-- `email_ab_test` is an A/B test (ab_tests), of any other kind an email send (email_sends);
-- a subject not written (yet) reads as null: open.
CREATE FUNCTION experiment_subject_status(ab_status text, holdout_status text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN COALESCE(ab_status = 'decided', holdout_status = 'decided') THEN 'decided' ELSE 'open' END
$$;

CREATE FUNCTION experiment_observed(ab_status text, winner text, holdout_status text, holdout_lift numeric) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN ab_status = 'decided' THEN CASE winner WHEN 'a' THEN 'a_better' WHEN 'b' THEN 'b_better' ELSE 'no_difference' END
    WHEN holdout_status = 'decided' THEN CASE WHEN holdout_lift > 0 THEN 'send_adds' ELSE 'no_difference' END
  END
$$;

-- The tenth of stated confidence a measured prediction is calibrated in: [0.0, 0.1) .. [0.9, 1.0].
CREATE FUNCTION confidence_tenth(confidence numeric) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (LEAST(floor(confidence * 10), 9) / 10)::text
$$;

CREATE TABLE outcome_counts (
  workspace_id         text PRIMARY KEY REFERENCES workspaces,
  decisions_recorded   bigint NOT NULL DEFAULT 0,
  decisions_measured   bigint NOT NULL DEFAULT 0,
  decisions_held       bigint NOT NULL DEFAULT 0,
  findings_open        bigint NOT NULL DEFAULT 0,
  findings_accepted    bigint NOT NULL DEFAULT 0,
  findings_rejected    bigint NOT NULL DEFAULT 0,
  ab_running           bigint NOT NULL DEFAULT 0,
  ab_decided           bigint NOT NULL DEFAULT 0,
  ab_a                 bigint NOT NULL DEFAULT 0,
  ab_b                 bigint NOT NULL DEFAULT 0,
  ab_none              bigint NOT NULL DEFAULT 0,
  holdouts_decided     bigint NOT NULL DEFAULT 0,
  holdouts_adding      bigint NOT NULL DEFAULT 0,
  holdout_lifts        bigint NOT NULL DEFAULT 0,        -- decided hold-backs with a lift (avg ignores nulls)
  holdout_lift_sum     numeric NOT NULL DEFAULT 0,       -- exact: the mean is sum / count, as avg() divides
  hypotheses_written   bigint NOT NULL DEFAULT 0,
  hypotheses_decided   bigint NOT NULL DEFAULT 0,
  hypotheses_held      bigint NOT NULL DEFAULT 0
);

CREATE TABLE prediction_rollups (
  workspace_id    text NOT NULL REFERENCES workspaces,
  dimension       text NOT NULL CHECK (dimension IN ('author', 'measure', 'confidence')),
  key             text NOT NULL,                 -- the author, the measure, or confidence_tenth()
  kind            text NOT NULL DEFAULT '',      -- the author's kind; '' for the other dimensions
  measured        bigint NOT NULL,
  held            bigint NOT NULL,
  confidence_sum  numeric NOT NULL,              -- exact: the stated confidence is sum / measured, as avg() divides
  PRIMARY KEY (workspace_id, dimension, key, kind)
);
-- The answer's order: the largest groups first, ties by key.
CREATE INDEX prediction_rollups_largest ON prediction_rollups (workspace_id, dimension, measured DESC, key, kind);

CREATE TABLE turned_down_rollups (
  workspace_id  text NOT NULL REFERENCES workspaces,
  reason        text NOT NULL,                   -- COALESCE(rejection_reason, 'No reason given')
  findings      bigint NOT NULL,
  PRIMARY KEY (workspace_id, reason)
);
CREATE INDEX turned_down_rollups_largest ON turned_down_rollups (workspace_id, findings DESC, reason);

-- A reason's latest findings, read for each reason shown.
CREATE INDEX findings_turned_down ON findings (workspace_id, (COALESCE(rejection_reason, 'No reason given')), created_at DESC, id DESC)
  WHERE status = 'rejected';

-- Each source table has one move function, called by its triggers with the rows a statement added
-- and the rows it removed (an UPDATE removes the old versions and adds the new): the rollups move by
-- what the added rows count minus what the removed ones counted, one upsert per rollup a statement.

CREATE FUNCTION decision_rollups_move(added decisions[], removed decisions[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (SELECT x.*, 1 AS n FROM unnest(added) x UNION ALL SELECT x.*, -1 FROM unnest(removed) x)
  INSERT INTO outcome_counts AS c (workspace_id, decisions_recorded, decisions_measured, decisions_held)
  SELECT workspace_id, sum(n), COALESCE(sum(n) FILTER (WHERE status = 'measured'), 0),
         COALESCE(sum(n) FILTER (WHERE status = 'measured' AND held), 0)
  FROM d GROUP BY workspace_id
  HAVING sum(n) <> 0 OR sum(n) FILTER (WHERE status = 'measured') <> 0 OR sum(n) FILTER (WHERE status = 'measured' AND held) <> 0
  ON CONFLICT (workspace_id) DO UPDATE SET
    decisions_recorded = c.decisions_recorded + EXCLUDED.decisions_recorded,
    decisions_measured = c.decisions_measured + EXCLUDED.decisions_measured,
    decisions_held = c.decisions_held + EXCLUDED.decisions_held;

  WITH d AS (SELECT x.*, 1 AS n FROM unnest(added) x UNION ALL SELECT x.*, -1 FROM unnest(removed) x)
  INSERT INTO prediction_rollups AS p (workspace_id, dimension, key, kind, measured, held, confidence_sum)
  SELECT d.workspace_id, g.dimension, g.key, g.kind, sum(d.n), COALESCE(sum(d.n) FILTER (WHERE d.held), 0), sum(d.n * d.confidence)
  FROM d CROSS JOIN LATERAL (VALUES ('author', d.author, d.author_kind), ('measure', d.measure, ''),
                                    ('confidence', confidence_tenth(d.confidence), '')) g (dimension, key, kind)
  WHERE d.status = 'measured'
  GROUP BY 1, 2, 3, 4
  HAVING sum(d.n) <> 0 OR sum(d.n) FILTER (WHERE d.held) <> 0 OR sum(d.n * d.confidence) <> 0
  ON CONFLICT (workspace_id, dimension, key, kind) DO UPDATE SET
    measured = p.measured + EXCLUDED.measured, held = p.held + EXCLUDED.held,
    confidence_sum = p.confidence_sum + EXCLUDED.confidence_sum;

  -- A group with no measured prediction left is no group.
  DELETE FROM prediction_rollups p
  USING (SELECT DISTINCT x.workspace_id, g.dimension, g.key, g.kind
         FROM (SELECT * FROM unnest(removed) UNION ALL SELECT * FROM unnest(added)) x
         CROSS JOIN LATERAL (VALUES ('author', x.author, x.author_kind), ('measure', x.measure, ''),
                                    ('confidence', confidence_tenth(x.confidence), '')) g (dimension, key, kind)
         WHERE x.status = 'measured') k
  WHERE p.workspace_id = k.workspace_id AND p.dimension = k.dimension AND p.key = k.key AND p.kind = k.kind AND p.measured = 0;
END $$;

CREATE FUNCTION finding_rollups_move(added findings[], removed findings[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (SELECT x.*, 1 AS n FROM unnest(added) x UNION ALL SELECT x.*, -1 FROM unnest(removed) x)
  INSERT INTO outcome_counts AS c (workspace_id, findings_open, findings_accepted, findings_rejected)
  SELECT workspace_id, COALESCE(sum(n) FILTER (WHERE status = 'open'), 0), COALESCE(sum(n) FILTER (WHERE status = 'accepted'), 0),
         COALESCE(sum(n) FILTER (WHERE status = 'rejected'), 0)
  FROM d GROUP BY workspace_id
  HAVING sum(n) FILTER (WHERE status = 'open') <> 0 OR sum(n) FILTER (WHERE status = 'accepted') <> 0
      OR sum(n) FILTER (WHERE status = 'rejected') <> 0
  ON CONFLICT (workspace_id) DO UPDATE SET
    findings_open = c.findings_open + EXCLUDED.findings_open,
    findings_accepted = c.findings_accepted + EXCLUDED.findings_accepted,
    findings_rejected = c.findings_rejected + EXCLUDED.findings_rejected;

  WITH d AS (SELECT x.*, 1 AS n FROM unnest(added) x UNION ALL SELECT x.*, -1 FROM unnest(removed) x)
  INSERT INTO turned_down_rollups AS r (workspace_id, reason, findings)
  SELECT workspace_id, COALESCE(rejection_reason, 'No reason given'), sum(n)
  FROM d WHERE status = 'rejected' GROUP BY 1, 2 HAVING sum(n) <> 0
  ON CONFLICT (workspace_id, reason) DO UPDATE SET findings = r.findings + EXCLUDED.findings;

  DELETE FROM turned_down_rollups r
  USING (SELECT DISTINCT workspace_id, COALESCE(rejection_reason, 'No reason given') AS reason
         FROM (SELECT * FROM unnest(removed) UNION ALL SELECT * FROM unnest(added)) x WHERE status = 'rejected') k
  WHERE r.workspace_id = k.workspace_id AND r.reason = k.reason AND r.findings = 0;
END $$;

-- Hypotheses move with their subject: an A/B test or a send written, decided or deleted changes how
-- the experiments about it are judged (an experiment may be written before its subject).
CREATE FUNCTION ab_test_rollups_move(added ab_tests[], removed ab_tests[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (SELECT x.*, 1 AS n FROM unnest(added) x UNION ALL SELECT x.*, -1 FROM unnest(removed) x),
  tests AS (
    SELECT workspace_id, COALESCE(sum(n) FILTER (WHERE status = 'running'), 0) AS running,
           COALESCE(sum(n) FILTER (WHERE status = 'decided'), 0) AS decided,
           COALESCE(sum(n) FILTER (WHERE winner = 'a'), 0) AS a, COALESCE(sum(n) FILTER (WHERE winner = 'b'), 0) AS b,
           COALESCE(sum(n) FILTER (WHERE winner = 'none'), 0) AS none
    FROM d GROUP BY workspace_id),
  judged AS (
    SELECT d.workspace_id, d.n, experiment_subject_status(d.status, NULL) = 'decided' AS decided,
           experiment_observed(d.status, d.winner, NULL, NULL) = e.expectation AS observed_as_expected
    FROM d JOIN experiments e ON e.workspace_id = d.workspace_id AND e.subject_id = d.id AND e.kind = 'email_ab_test'),
  hypotheses AS (
    SELECT workspace_id, COALESCE(sum(n) FILTER (WHERE decided), 0) AS decided,
           COALESCE(sum(n) FILTER (WHERE decided AND observed_as_expected), 0) AS held
    FROM judged GROUP BY workspace_id)
  INSERT INTO outcome_counts AS c (workspace_id, ab_running, ab_decided, ab_a, ab_b, ab_none, hypotheses_decided, hypotheses_held)
  SELECT t.workspace_id, t.running, t.decided, t.a, t.b, t.none, COALESCE(h.decided, 0), COALESCE(h.held, 0)
  FROM tests t LEFT JOIN hypotheses h ON h.workspace_id = t.workspace_id
  WHERE t.running <> 0 OR t.decided <> 0 OR t.a <> 0 OR t.b <> 0 OR t.none <> 0 OR h.decided <> 0 OR h.held <> 0
  ON CONFLICT (workspace_id) DO UPDATE SET
    ab_running = c.ab_running + EXCLUDED.ab_running, ab_decided = c.ab_decided + EXCLUDED.ab_decided,
    ab_a = c.ab_a + EXCLUDED.ab_a, ab_b = c.ab_b + EXCLUDED.ab_b, ab_none = c.ab_none + EXCLUDED.ab_none,
    hypotheses_decided = c.hypotheses_decided + EXCLUDED.hypotheses_decided,
    hypotheses_held = c.hypotheses_held + EXCLUDED.hypotheses_held;
END $$;

CREATE FUNCTION email_send_rollups_move(added email_sends[], removed email_sends[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (SELECT x.*, 1 AS n FROM unnest(added) x UNION ALL SELECT x.*, -1 FROM unnest(removed) x),
  sends AS (
    SELECT workspace_id, COALESCE(sum(n) FILTER (WHERE holdout_status = 'decided'), 0) AS decided,
           COALESCE(sum(n) FILTER (WHERE holdout_status = 'decided' AND holdout_lift > 0), 0) AS adding,
           COALESCE(sum(n) FILTER (WHERE holdout_status = 'decided' AND holdout_lift IS NOT NULL), 0) AS lifts,
           COALESCE(sum(n * holdout_lift) FILTER (WHERE holdout_status = 'decided'), 0) AS lift_sum
    FROM d GROUP BY workspace_id),
  judged AS (
    SELECT d.workspace_id, d.n, experiment_subject_status(NULL, d.holdout_status) = 'decided' AS decided,
           experiment_observed(NULL, NULL, d.holdout_status, d.holdout_lift) = e.expectation AS observed_as_expected
    FROM d JOIN experiments e ON e.workspace_id = d.workspace_id AND e.subject_id = d.id AND e.kind <> 'email_ab_test'),
  hypotheses AS (
    SELECT workspace_id, COALESCE(sum(n) FILTER (WHERE decided), 0) AS decided,
           COALESCE(sum(n) FILTER (WHERE decided AND observed_as_expected), 0) AS held
    FROM judged GROUP BY workspace_id)
  INSERT INTO outcome_counts AS c (workspace_id, holdouts_decided, holdouts_adding, holdout_lifts, holdout_lift_sum, hypotheses_decided, hypotheses_held)
  SELECT s.workspace_id, s.decided, s.adding, s.lifts, s.lift_sum, COALESCE(h.decided, 0), COALESCE(h.held, 0)
  FROM sends s LEFT JOIN hypotheses h ON h.workspace_id = s.workspace_id
  WHERE s.decided <> 0 OR s.adding <> 0 OR s.lifts <> 0 OR s.lift_sum <> 0 OR h.decided <> 0 OR h.held <> 0
  ON CONFLICT (workspace_id) DO UPDATE SET
    holdouts_decided = c.holdouts_decided + EXCLUDED.holdouts_decided,
    holdouts_adding = c.holdouts_adding + EXCLUDED.holdouts_adding,
    holdout_lifts = c.holdout_lifts + EXCLUDED.holdout_lifts,
    holdout_lift_sum = c.holdout_lift_sum + EXCLUDED.holdout_lift_sum,
    hypotheses_decided = c.hypotheses_decided + EXCLUDED.hypotheses_decided,
    hypotheses_held = c.hypotheses_held + EXCLUDED.hypotheses_held;
END $$;

CREATE FUNCTION experiment_rollups_move(added experiments[], removed experiments[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- The subjects are held still while their experiments are judged: a subject decided by a
  -- concurrent transaction waits for this one (and then sees these experiments), or this one reads it decided.
  PERFORM 1 FROM ab_tests t
  WHERE (t.workspace_id, t.id) IN (SELECT x.workspace_id, x.subject_id FROM (SELECT * FROM unnest(added) UNION ALL SELECT * FROM unnest(removed)) x
                                   WHERE x.kind = 'email_ab_test')
  FOR SHARE;
  PERFORM 1 FROM email_sends s
  WHERE (s.workspace_id, s.id) IN (SELECT x.workspace_id, x.subject_id FROM (SELECT * FROM unnest(added) UNION ALL SELECT * FROM unnest(removed)) x
                                   WHERE x.kind <> 'email_ab_test')
  FOR SHARE;

  -- Judged through the subject as store/experiments.ts experimentJoins reads it.
  WITH d AS (SELECT x.*, 1 AS n FROM unnest(added) x UNION ALL SELECT x.*, -1 FROM unnest(removed) x),
  judged AS (
    SELECT d.workspace_id, d.n, experiment_subject_status(t.status, s.holdout_status) = 'decided' AS decided,
           experiment_observed(t.status, t.winner, s.holdout_status, s.holdout_lift) = d.expectation AS observed_as_expected
    FROM d
    LEFT JOIN ab_tests t ON d.kind = 'email_ab_test' AND t.workspace_id = d.workspace_id AND t.id = d.subject_id
    LEFT JOIN email_sends s ON d.kind <> 'email_ab_test' AND s.workspace_id = d.workspace_id AND s.id = d.subject_id)
  INSERT INTO outcome_counts AS c (workspace_id, hypotheses_written, hypotheses_decided, hypotheses_held)
  SELECT workspace_id, sum(n), COALESCE(sum(n) FILTER (WHERE decided), 0), COALESCE(sum(n) FILTER (WHERE decided AND observed_as_expected), 0)
  FROM judged GROUP BY workspace_id
  HAVING sum(n) <> 0 OR sum(n) FILTER (WHERE decided) <> 0 OR sum(n) FILTER (WHERE decided AND observed_as_expected) <> 0
  ON CONFLICT (workspace_id) DO UPDATE SET
    hypotheses_written = c.hypotheses_written + EXCLUDED.hypotheses_written,
    hypotheses_decided = c.hypotheses_decided + EXCLUDED.hypotheses_decided,
    hypotheses_held = c.hypotheses_held + EXCLUDED.hypotheses_held;
END $$;

-- One trigger function for the five tables: the statement's transition tables, as arrays of the
-- table's rows, to the move function the trigger names (TG_ARGV[0]). The statements are dynamic
-- because the row type is the trigger's table's; a branch names only the transition tables its
-- trigger declares.
CREATE FUNCTION outcome_rollups_on_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format('SELECT %I(ARRAY(SELECT a::%I FROM added a), ''{}'')', TG_ARGV[0], TG_TABLE_NAME);
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT %I(''{}'', ARRAY(SELECT r::%I FROM removed r))', TG_ARGV[0], TG_TABLE_NAME);
  ELSE
    EXECUTE format('SELECT %I(ARRAY(SELECT a::%I FROM added a), ARRAY(SELECT r::%I FROM removed r))', TG_ARGV[0], TG_TABLE_NAME, TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END $$;

-- Adds every row of `source` in the workspace to the rollups through its move function, 5,000 rows
-- at a time in key order (the moves add up), so a large workspace is never held in memory at once.
CREATE FUNCTION outcome_rollups_add_rows(ws text, source regclass, move text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  after text := '';
BEGIN
  LOOP
    EXECUTE format(
      'WITH batch AS (SELECT x FROM %s x WHERE x.workspace_id = $1 AND x.id > $2 ORDER BY x.id LIMIT 5000)
       SELECT (SELECT max((b.x).id) FROM batch b), %I(ARRAY(SELECT b.x FROM batch b), ''{}'')', source, move)
      INTO after USING ws, after;
    EXIT WHEN after IS NULL;
  END LOOP;
END $$;

-- A workspace's rollups recomputed from its rows: every group and counter the moves keep.
CREATE FUNCTION rebuild_outcome_rollups(ws text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM outcome_counts WHERE workspace_id = ws;
  DELETE FROM prediction_rollups WHERE workspace_id = ws;
  DELETE FROM turned_down_rollups WHERE workspace_id = ws;
  PERFORM outcome_rollups_add_rows(ws, 'decisions', 'decision_rollups_move');
  PERFORM outcome_rollups_add_rows(ws, 'findings', 'finding_rollups_move');
  -- Tests and sends first, their hypotheses not counted yet: the experiments then judge them all.
  PERFORM outcome_rollups_add_rows(ws, 'ab_tests', 'ab_test_rollups_move');
  PERFORM outcome_rollups_add_rows(ws, 'email_sends', 'email_send_rollups_move');
  UPDATE outcome_counts SET hypotheses_decided = 0, hypotheses_held = 0 WHERE workspace_id = ws;
  PERFORM outcome_rollups_add_rows(ws, 'experiments', 'experiment_rollups_move');
END $$;

-- No source row is written while the triggers are made and the rollups filled from what exists.
LOCK TABLE decisions, findings, ab_tests, email_sends, experiments IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER outcome_rollups_on_insert AFTER INSERT ON decisions
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('decision_rollups_move');
CREATE TRIGGER outcome_rollups_on_update AFTER UPDATE ON decisions
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('decision_rollups_move');
CREATE TRIGGER outcome_rollups_on_delete AFTER DELETE ON decisions
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('decision_rollups_move');

CREATE TRIGGER outcome_rollups_on_insert AFTER INSERT ON findings
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('finding_rollups_move');
CREATE TRIGGER outcome_rollups_on_update AFTER UPDATE ON findings
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('finding_rollups_move');
CREATE TRIGGER outcome_rollups_on_delete AFTER DELETE ON findings
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('finding_rollups_move');

CREATE TRIGGER outcome_rollups_on_insert AFTER INSERT ON ab_tests
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('ab_test_rollups_move');
CREATE TRIGGER outcome_rollups_on_update AFTER UPDATE ON ab_tests
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('ab_test_rollups_move');
CREATE TRIGGER outcome_rollups_on_delete AFTER DELETE ON ab_tests
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('ab_test_rollups_move');

CREATE TRIGGER outcome_rollups_on_insert AFTER INSERT ON email_sends
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('email_send_rollups_move');
CREATE TRIGGER outcome_rollups_on_update AFTER UPDATE ON email_sends
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('email_send_rollups_move');
CREATE TRIGGER outcome_rollups_on_delete AFTER DELETE ON email_sends
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('email_send_rollups_move');

CREATE TRIGGER outcome_rollups_on_insert AFTER INSERT ON experiments
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('experiment_rollups_move');
CREATE TRIGGER outcome_rollups_on_update AFTER UPDATE ON experiments
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('experiment_rollups_move');
CREATE TRIGGER outcome_rollups_on_delete AFTER DELETE ON experiments
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION outcome_rollups_on_write('experiment_rollups_move');

SELECT rebuild_outcome_rollups(workspace_id) FROM workspaces;
