import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { openDatabase } from '../../server/src/store/db.ts'
import { migrate } from '../../server/src/store/migrate.ts'
import { growWorkspace } from './scale-seed.ts'
const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '/tmp/cost-scratch/' + Date.now() })
await migrate(db.sql)
let t = performance.now()
const demo = await createDemoWorkspace(db.sql)
console.log('demo', Math.round(performance.now() - t))
t = performance.now()
const counts = await growWorkspace(db.sql, demo.workspace.id, Number(process.argv[2] ?? 100000))
console.log('grow', Math.round(performance.now() - t), JSON.stringify(counts))
await db.close()
