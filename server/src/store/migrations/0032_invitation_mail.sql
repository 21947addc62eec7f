-- An invitation is mailed in words of its own (the invitee did not ask for a link, and may read the
-- mail after the link has expired): a kind of its own beside the sign-in link a person asked for.
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check CHECK (kind IN ('sign_in_link', 'invitation', 'waiting'));
