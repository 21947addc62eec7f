-- "Mail me a sign-in link" looks a person up by email alone, in every workspace (no workspace is
-- known before sign-in: store/people.ts selectPeopleWithEmail). people_email leads with the
-- workspace, so that read scanned every person of every workspace; this index makes it one probe.
CREATE INDEX people_by_email ON people (email) WHERE removed_at IS NULL;
