-- An agent retired by a person (the console's Retire, `growth admin agent retire ID`): its
-- credentials are revoked in the same transaction, it is listed apart from the active agents, and
-- its requests, decisions and audit entries are kept. Null: active.
ALTER TABLE agents ADD COLUMN retired_at timestamptz;
