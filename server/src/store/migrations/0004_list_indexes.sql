-- Every list the API pages is read in its order from an index that starts with workspace_id, so a
-- page costs the same however much the workspace holds (CONTRACT: at most 500 items an answer).
CREATE INDEX connections_oldest ON connections (workspace_id, created_at, id);
CREATE INDEX agents_oldest ON agents (workspace_id, created_at, id);
CREATE INDEX tools_oldest ON tools (workspace_id, created_at, key);
CREATE INDEX rules_in_force ON rules (workspace_id, created_at, id) WHERE enabled;
-- A mission's automations in order (each mission shows its first ones and how many it has).
CREATE INDEX automations_by_mission_oldest ON automations (workspace_id, mission_id, created_at, id);
-- The signals that speak for an opportunity (GET /opportunities counts them).
CREATE INDEX signals_by_opportunity ON signals (workspace_id, opportunity_id);
-- Findings turned down, by reason (GET /outcomes groups them).
CREATE INDEX findings_by_status_reason ON findings (workspace_id, status, rejection_reason, created_at DESC, id DESC);
