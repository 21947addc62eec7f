-- POST /agent/authorize reads what bears on the asked tool action, not the workspace's whole tool
-- catalogue and every rule in force (store/agent-gateway.ts). The asked tool and its action are
-- found by their primary keys; the rules that could match the request through rule_matches; how
-- many rules are in force (the rules check says so) from a counter on the workspace.

-- Which rule in force names which tool action: one row for each { tool, action? } of a rule's match,
-- action '' for a match without one (every action of the tool). A rule can bite a request only if
-- it has a row here for the request's tool with its action or with ''. Kept by triggers on rules in
-- the writing transaction, whoever writes them.
CREATE TABLE rule_matches (
  workspace_id  text NOT NULL,
  tool          text NOT NULL,
  action        text NOT NULL,
  rule_id       text NOT NULL,
  PRIMARY KEY (workspace_id, tool, action, rule_id),
  FOREIGN KEY (workspace_id, rule_id) REFERENCES rules (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX rule_matches_of_rule ON rule_matches (workspace_id, rule_id);

-- How many rules are in force (enabled), beside the rules version: kept by the same triggers.
ALTER TABLE workspaces ADD COLUMN rules_in_force integer NOT NULL DEFAULT 0 CHECK (rules_in_force >= 0);

-- The match rows of these rules (those enabled), as the gateway reads a structure: a match's action
-- missing, null or '' is every action of the tool.
CREATE FUNCTION rule_matches_insert(rules jsonb) RETURNS void LANGUAGE sql AS $$
  INSERT INTO rule_matches (workspace_id, tool, action, rule_id)
  SELECT r ->> 'workspace_id', m ->> 'tool', COALESCE(m ->> 'action', ''), r ->> 'id'
  FROM jsonb_array_elements(rules) r CROSS JOIN LATERAL jsonb_path_query(r -> 'structure', 'lax $.match[*]') m
  WHERE (r ->> 'enabled')::boolean AND jsonb_typeof(m) = 'object' AND jsonb_typeof(m -> 'tool') = 'string'
  ON CONFLICT DO NOTHING
$$;

-- Moves the workspaces' counters by the enabled rules of `added` minus those of `removed`.
CREATE FUNCTION rules_in_force_move(added jsonb, removed jsonb) RETURNS void LANGUAGE sql AS $$
  UPDATE workspaces w SET rules_in_force = w.rules_in_force + d.n
  FROM (SELECT x.workspace_id, sum(x.n)::int AS n FROM (
          SELECT r ->> 'workspace_id' AS workspace_id, 1 AS n FROM jsonb_array_elements(added) r WHERE (r ->> 'enabled')::boolean
          UNION ALL
          SELECT r ->> 'workspace_id', -1 FROM jsonb_array_elements(removed) r WHERE (r ->> 'enabled')::boolean) x
        GROUP BY 1) d
  WHERE w.workspace_id = d.workspace_id AND d.n <> 0
$$;

CREATE FUNCTION rule_lookup_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  new_rows jsonb := (SELECT COALESCE(jsonb_agg(jsonb_build_object('workspace_id', workspace_id, 'id', id, 'structure', structure, 'enabled', enabled)), '[]') FROM added);
BEGIN
  PERFORM rule_matches_insert(new_rows);
  PERFORM rules_in_force_move(new_rows, '[]');
  RETURN NULL;
END $$;

CREATE FUNCTION rule_lookup_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_rows jsonb := (SELECT COALESCE(jsonb_agg(jsonb_build_object('workspace_id', workspace_id, 'id', id, 'enabled', enabled)), '[]') FROM removed);
  new_rows jsonb := (SELECT COALESCE(jsonb_agg(jsonb_build_object('workspace_id', workspace_id, 'id', id, 'structure', structure, 'enabled', enabled)), '[]') FROM added);
BEGIN
  DELETE FROM rule_matches x USING removed r WHERE x.workspace_id = r.workspace_id AND x.rule_id = r.id;
  PERFORM rule_matches_insert(new_rows);
  PERFORM rules_in_force_move(new_rows, old_rows);
  RETURN NULL;
END $$;

-- A deleted rule's match rows go with it (the foreign key cascades); its count goes here.
CREATE FUNCTION rule_lookup_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM rules_in_force_move('[]', (SELECT COALESCE(jsonb_agg(jsonb_build_object('workspace_id', workspace_id, 'enabled', enabled)), '[]') FROM removed));
  RETURN NULL;
END $$;

-- The match rows and the counter of one workspace, made again from its rules: for a load that ran
-- with triggers off (test/support/scale-seed.ts runs every rebuild_<name>_rollups), and the backfill.
CREATE FUNCTION rebuild_rule_lookup_rollups(ws text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM rule_matches WHERE workspace_id = ws;
  PERFORM rule_matches_insert((SELECT COALESCE(jsonb_agg(jsonb_build_object('workspace_id', workspace_id, 'id', id, 'structure', structure, 'enabled', enabled)), '[]')
                               FROM rules WHERE workspace_id = ws));
  UPDATE workspaces SET rules_in_force = (SELECT count(*) FROM rules WHERE workspace_id = ws AND enabled) WHERE workspace_id = ws;
END $$;

-- No rule is written while the lookup is filled from what exists, so it starts exact.
LOCK TABLE rules IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER rule_lookup_on_insert AFTER INSERT ON rules
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION rule_lookup_added();
CREATE TRIGGER rule_lookup_on_update AFTER UPDATE ON rules
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION rule_lookup_changed();
CREATE TRIGGER rule_lookup_on_delete AFTER DELETE ON rules
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION rule_lookup_removed();

SELECT rebuild_rule_lookup_rollups(workspace_id) FROM workspaces WHERE workspace_id IN (SELECT DISTINCT workspace_id FROM rules);
