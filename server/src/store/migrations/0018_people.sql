-- The people of a workspace (CONTRACT: People and the console): who signs in to the console, with a
-- role. An email is stored lower-cased and names one person among those not removed; a removed
-- person is kept (removed_at) so the audit list and past decisions still name them.
CREATE TABLE people (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  email         text NOT NULL CHECK (email = lower(email)),
  name          text NOT NULL,
  role          text NOT NULL CHECK (role IN ('owner', 'approver', 'viewer')),
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  removed_at    timestamptz(3),
  PRIMARY KEY (workspace_id, id)
);
CREATE UNIQUE INDEX people_email ON people (workspace_id, email) WHERE removed_at IS NULL;

-- One-time sign-in links: only the SHA-256 of the token is kept; a link is used once, within 15
-- minutes (domain/sign-in.ts).
CREATE TABLE sign_in_links (
  workspace_id  text NOT NULL,
  token_hash    text NOT NULL,
  person_id     text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  expires_at    timestamptz(3) NOT NULL,
  used_at       timestamptz(3),
  PRIMARY KEY (workspace_id, token_hash),
  FOREIGN KEY (workspace_id, person_id) REFERENCES people
);
CREATE INDEX sign_in_links_person ON sign_in_links (workspace_id, person_id);

-- Console sessions, shared by every server process: only the SHA-256 of the session token is kept;
-- the CSRF secret is sealed under the secrets key like the other secrets at rest. Idle expiry
-- 12 hours (last_seen_at), absolute 7 days (created_at); ended_at when signed out or removed.
CREATE TABLE console_sessions (
  workspace_id  text NOT NULL,
  token_hash    text NOT NULL,
  person_id     text NOT NULL,
  csrf_secret   text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  last_seen_at  timestamptz(3) NOT NULL DEFAULT now(),
  ended_at      timestamptz(3),
  PRIMARY KEY (workspace_id, token_hash),
  FOREIGN KEY (workspace_id, person_id) REFERENCES people
);
CREATE INDEX console_sessions_person ON console_sessions (workspace_id, person_id) WHERE ended_at IS NULL;

-- What people and operators did, newest first (growth admin audit): sign-ins, decisions, stops,
-- policy, tokens, agents, webhook endpoints and people changes. actor: { kind, id?, name }.
CREATE TABLE audit_entries (
  workspace_id  text NOT NULL REFERENCES workspaces,
  id            text NOT NULL,
  at            timestamptz(3) NOT NULL DEFAULT now(),
  actor         jsonb NOT NULL CHECK (actor->>'kind' IN ('operator', 'person', 'system')),
  action        text NOT NULL,
  subject       text NOT NULL,
  detail        jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX audit_entries_newest ON audit_entries (workspace_id, at DESC, id DESC);
