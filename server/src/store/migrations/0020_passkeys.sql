-- Passkeys (WebAuthn) of the people of a workspace: a signed-in person registers one, then signs in
-- with it instead of a link (domain/passkeys.ts, passkey-sign-in.ts). credential_id is the
-- authenticator's id, base64url; public_key its COSE public key; counter the signature counter last
-- seen (a counter that goes back is a cloned authenticator, refused).
CREATE TABLE passkeys (
  workspace_id   text NOT NULL,
  credential_id  text NOT NULL,
  person_id      text NOT NULL,
  name           text NOT NULL,
  public_key     bytea NOT NULL,
  counter        bigint NOT NULL DEFAULT 0,
  transports     jsonb NOT NULL DEFAULT '[]',
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  last_used_at   timestamptz(3),
  PRIMARY KEY (workspace_id, credential_id),
  FOREIGN KEY (workspace_id, person_id) REFERENCES people
);
CREATE INDEX passkeys_person ON passkeys (workspace_id, person_id);

-- The challenges of passkey ceremonies, kept here so that every server process shares them: each
-- used once, for 5 minutes, by the page that asked for it (bound_to: SHA-256 of the session token
-- for a registration, of the sign-in form's token for a sign-in). A sign-in's challenge belongs to no
-- workspace yet: workspace_id '' (as the sign-in counters of an address).
CREATE TABLE passkey_challenges (
  workspace_id  text NOT NULL,
  challenge     text NOT NULL,
  purpose       text NOT NULL CHECK (purpose IN ('register', 'sign_in')),
  bound_to      text NOT NULL,
  person_id     text,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  expires_at    timestamptz(3) NOT NULL,
  used_at       timestamptz(3),
  PRIMARY KEY (workspace_id, challenge)
);
CREATE INDEX passkey_challenges_expiry ON passkey_challenges (workspace_id, expires_at);
