import type postgres from 'postgres'

/**
 * The database handles every layer passes along: a pool (`Sql`) or a transaction (`Tx`) of
 * postgres.js, whichever database serves them (embedded PGlite or a PostgreSQL server). Only the
 * store writes SQL with them; the others hand them down.
 */
export type Sql = postgres.Sql<{}>
export type Tx = postgres.TransactionSql<{}>
/** Either: a read that may run inside a transaction or outside one. */
export type Db = Sql | Tx
