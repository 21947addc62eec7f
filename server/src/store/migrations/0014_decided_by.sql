-- Who decided an approval or a proposed change is no longer free text: it is an object,
-- { "kind": "operator", "name": <the operator's login>, "note"?: <the --by note> } from the CLI, and
-- later { "kind": "person", "id": "per_...", "name" } from the console. A decision also keeps its
-- reason (the CLI's --reason; null when none was given).
--
-- Text written before was the CLI's --by (default "operator:<login>"): it becomes an operator
-- decision of that name, without the "operator:" prefix that the kind now says.
ALTER TABLE approvals
  ALTER COLUMN decided_by TYPE jsonb USING CASE WHEN decided_by IS NULL THEN NULL
    ELSE jsonb_build_object('kind', 'operator', 'name', regexp_replace(decided_by, '^operator:', '')) END,
  ADD COLUMN decision_reason text,
  ADD CONSTRAINT approvals_decided_by_kind CHECK (decided_by IS NULL OR decided_by->>'kind' IN ('operator', 'person'));

ALTER TABLE actions
  ALTER COLUMN decided_by TYPE jsonb USING CASE WHEN decided_by IS NULL THEN NULL
    ELSE jsonb_build_object('kind', 'operator', 'name', regexp_replace(decided_by, '^operator:', '')) END,
  ADD COLUMN decision_reason text,
  ADD CONSTRAINT actions_decided_by_kind CHECK (decided_by IS NULL OR decided_by->>'kind' IN ('operator', 'person'));

-- The events already recorded carry the approval or the change as GET /approvals and GET /actions
-- showed it then: they take the same shape, so a reader of GET /events meets one shape only.
UPDATE events SET data = jsonb_set(data, '{approval}', (data->'approval') || jsonb_build_object(
    'decidedBy', CASE WHEN jsonb_typeof(data->'approval'->'decidedBy') = 'string'
      THEN jsonb_build_object('kind', 'operator', 'name', regexp_replace(data->'approval'->>'decidedBy', '^operator:', ''))
      ELSE data->'approval'->'decidedBy' END,
    'decisionReason', COALESCE(data->'approval'->'decisionReason', 'null'::jsonb)))
WHERE type LIKE 'approval.%' AND jsonb_typeof(data->'approval') = 'object';

UPDATE events SET data = jsonb_set(data, '{action}', (data->'action') || jsonb_build_object(
    'decidedBy', CASE WHEN jsonb_typeof(data->'action'->'decidedBy') = 'string'
      THEN jsonb_build_object('kind', 'operator', 'name', regexp_replace(data->'action'->>'decidedBy', '^operator:', ''))
      ELSE data->'action'->'decidedBy' END,
    'decisionReason', COALESCE(data->'action'->'decisionReason', 'null'::jsonb)))
WHERE type LIKE 'action.%' AND jsonb_typeof(data->'action') = 'object';
