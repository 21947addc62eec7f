-- Every applied agent policy (growth admin policy apply, CONTRACT: Agent policy) is recorded: who
-- applied it (the decidedBy shape, core/decider.ts: { kind: 'operator', name, note? } from the CLI),
-- the rules version it made, and its changes in sentences. Newest first per workspace.
--
-- A tool or action the policy retires is deleted, with the permissions to it: nothing refers to
-- those rows (agent_requests keep the tool and action as text, their checks and rules as data), so
-- past decisions stay readable without them, and a key added again is simply a new tool.
CREATE TABLE policy_changes (
  workspace_id   text NOT NULL REFERENCES workspaces,
  id             text NOT NULL,
  rules_version  integer NOT NULL,
  applied_by     jsonb NOT NULL CHECK (applied_by->>'kind' IN ('operator', 'person')),
  changes        jsonb NOT NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX policy_changes_newest ON policy_changes (workspace_id, created_at DESC, id DESC);
