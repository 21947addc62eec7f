-- Every list that pages by (created_at, id) hands out its position as a JavaScript Date, which
-- holds milliseconds, while a column filled by now() holds microseconds on a PostgreSQL server. A
-- position then did not equal the row it came from: a list in newest-first order skipped the rows
-- of the same millisecond, one in oldest-first order repeated its last row for ever. Storing
-- created_at to the millisecond makes every position exact, whoever fills the column (now(), a
-- Date, the demo's history), and keeps a new table from bringing the bug back as long as it
-- declares timestamptz(3). Existing values are rounded once, here.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = current_schema()
      AND column_name = 'created_at'
      AND data_type = 'timestamp with time zone'
      AND coalesce(datetime_precision, 6) > 3
    ORDER BY table_name
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN created_at TYPE timestamptz(3)', t.table_name);
  END LOOP;
END $$;
