-- The console's mail (docs/console.md, "Mail"): one outbox, shared by every server process. A row is
-- a mail to a person: a sign-in link they asked for (the link itself is made when the mail goes, so
-- no token is ever stored), or a notice of what waits for them. Claimed with FOR UPDATE SKIP LOCKED
-- under a lease, as webhook deliveries are; retried with backoff; never sent past expires_at.
--
-- A notice gathers: while a person's notice has not been claimed yet, whatever else starts waiting
-- is added to its items (the unique index below holds one such row per person), and it is claimed
-- only once the person's previous notice was claimed at least the notice interval ago (one a minute).
CREATE TABLE mail_outbox (
  workspace_id     text NOT NULL,
  id               text NOT NULL,
  person_id        text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('sign_in_link', 'waiting')),
  -- waiting: what waits, in the order it came: [{ "kind": "approval" | "action", "id": ... }]
  items            jsonb NOT NULL DEFAULT '[]',
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'dropped')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz(3) NOT NULL,
  lease_owner      text,
  lease_until      timestamptz(3),
  -- When it was first claimed: the pace of a person's notices is measured from it.
  claimed_at       timestamptz(3),
  last_error       text,
  expires_at       timestamptz(3) NOT NULL,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  done_at          timestamptz(3),
  PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, person_id) REFERENCES people
);
-- The one notice per person still gathering what waits.
CREATE UNIQUE INDEX mail_outbox_gathering ON mail_outbox (workspace_id, person_id) WHERE kind = 'waiting' AND status = 'pending' AND attempts = 0;
-- What a sender claims: the pending mail, by when it is due.
CREATE INDEX mail_outbox_due ON mail_outbox (workspace_id, next_attempt_at) WHERE status = 'pending';
-- A person's notices by when they were claimed (the pace).
CREATE INDEX mail_outbox_pace ON mail_outbox (workspace_id, person_id, claimed_at) WHERE kind = 'waiting' AND claimed_at IS NOT NULL;
-- Housekeeping (domain/console-housekeeping.ts) deletes old sign-in links, sessions and mail every
-- 10 minutes across workspaces, like the idempotency keys: no index of its own (one on a session's
-- last sight would make each of its once-a-minute touches a write of the index too).
