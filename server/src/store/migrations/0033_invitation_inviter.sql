-- An invitation says who invited the person (a name they know tells them the mail is meant): the
-- id of the person who invited them, read with their name as it is when the mail goes. Null for
-- every other mail, and for an invitation queued before this column.
ALTER TABLE mail_outbox ADD COLUMN invited_by text;
