-- When a person last signed in (a session begun by a link or a passkey): the People page shows it,
-- and an owner makes a new invitation link only for a person who has never signed in
-- (domain/people.ts). Filled from the audit list's sign-ins for the people already there.
ALTER TABLE people ADD COLUMN signed_in_at timestamptz(3);
UPDATE people p SET signed_in_at = (
  SELECT max(a.at) FROM audit_entries a
  WHERE a.workspace_id = p.workspace_id AND a.subject = p.id AND a.action = 'person.signed_in'
);
