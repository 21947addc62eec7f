// Follows the workspace's event stream and handles each event once, across restarts: node poller.js
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { Growth } from '@growth-service/sdk'

const STATE_FILE = process.env.STATE_FILE ?? 'poller-state.json'
const INTERVAL_MS = Number(process.env.POLL_INTERVAL_MS ?? 2_000)
const PAGE = 100

const growth = new Growth() // GROWTH_TOKEN and GROWTH_BASE_URL

// What to do with each event. Here: print it, one line each.
function handle(event) {
  console.log(`${event.createdAt}  ${event.event}  ${event.id}`)
}

// Where we are: `after` is the position the current page was read from (a meta.nextCursor), and
// `lastEventId` the last event handled. Saved after every event, by writing a new file and renaming
// it over the old one, so a kill at any moment leaves either the old state or the new one.
function load() {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8'))
  } catch (error) {
    if (error.code === 'ENOENT') return { after: undefined, lastEventId: undefined }
    throw error
  }
}
function save(state) {
  writeFileSync(`${STATE_FILE}.tmp`, JSON.stringify(state))
  renameSync(`${STATE_FILE}.tmp`, STATE_FILE)
}

let state = load()
console.error(state.after ? `Resuming after ${state.lastEventId}` : 'Reading the stream from its start')
for (;;) {
  const { data: page, rateLimit } = await growth.events.list({ after: state.after, limit: PAGE }).withResponse()
  // After a restart the page is read again from where it started: skip up to the last event handled.
  const seen = page.data.findIndex((event) => event.id === state.lastEventId)
  for (const event of page.data.slice(seen + 1)) {
    handle(event)
    state = { after: state.after, lastEventId: event.id }
    save(state)
  }
  // Every page with events names the position after its last one; an empty page names none.
  if (page.meta?.nextCursor) {
    state = { after: page.meta.nextCursor, lastEventId: state.lastEventId }
    save(state)
  }
  if (page.data.length === PAGE) continue // more to read at once
  // Caught up: ask again after INTERVAL_MS, or later if that would spend the token's calls for the
  // hour (600 for a workspace token) before the hour is over.
  const spread = rateLimit ? (rateLimit.resetAt.getTime() - Date.now()) / Math.max(1, rateLimit.remaining) : 0
  await sleep(Math.max(INTERVAL_MS, spread))
}
