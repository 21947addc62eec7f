-- The agent policy's missingFacts (CONTRACT: Agent policy): what a rule, ceiling or workspace limit
-- does when it reads a fact the request did not state. require_approval is the default: found in
-- review, an agent could leave a fact out (or state a small one) and slip past a rule that reads it.
ALTER TABLE workspaces ADD COLUMN missing_facts text NOT NULL DEFAULT 'require_approval'
  CHECK (missing_facts IN ('require_approval', 'ignore'));
