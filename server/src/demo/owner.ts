import type { Db } from '../core/db.ts'
import { addPerson, listPeople, type Person } from '../domain/people.ts'
import { PEOPLE } from './people.ts'

/** The demo workspace's owner: Maya Chen, Head of Growth, who signs in to the console. */
const OWNER = { name: PEOPLE[0].name, email: 'maya@example.com' }

/**
 * The demo workspace's owner, added on the first start that finds them missing (a new database, or
 * one seeded before there were people); every later start finds them by their address.
 */
export async function demoOwner(sql: Db, workspaceId: string): Promise<Person> {
  const found = (await listPeople(sql, workspaceId)).people.find((p) => p.email === OWNER.email)
  return found ?? addPerson(sql, { workspaceId, email: OWNER.email, name: OWNER.name, role: 'owner' })
}
