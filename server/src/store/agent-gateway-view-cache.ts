import type { GatewayAsk, ReadView } from './agent-gateway.ts'

/** What one pool keeps, in bytes of the views' text (the objects take a few times that); the least recently used goes first. */
const MAX_BYTES = 4 * 1024 * 1024
/** A larger view (an action with hundreds of rules written for it) is read for every decision. */
const MAX_VIEW_BYTES = 64 * 1024

/**
 * The views the agent gateway read last, by workspace, agent, tool and action, so that an agent
 * asking again is judged without a read of its own. Never trusted: a decision judged against a
 * kept view carries its digest, and the statement recording it writes nothing when the database
 * no longer holds that view (recordDecisions), after which the decision is judged again on a
 * fresh read. So what is kept here changes how many statements a decision takes, never what it
 * decides, on one server process or on several sharing a database; nothing needs to tell it of a
 * change.
 */
export class GatewayViewCache {
  private readonly views = new Map<string, ReadView>()
  private bytes = 0

  get(workspaceId: string, ask: GatewayAsk): ReadView | undefined {
    const key = keyOf(workspaceId, ask)
    const view = this.views.get(key)
    if (view) {
      // Most recently used last.
      this.views.delete(key)
      this.views.set(key, view)
    }
    return view
  }

  set(workspaceId: string, ask: GatewayAsk, view: ReadView): void {
    this.delete(workspaceId, ask)
    if (view.size > MAX_VIEW_BYTES) return
    this.views.set(keyOf(workspaceId, ask), view)
    this.bytes += view.size
    for (const [key, oldest] of this.views) {
      if (this.bytes <= MAX_BYTES) break
      this.views.delete(key)
      this.bytes -= oldest.size
    }
  }

  delete(workspaceId: string, ask: GatewayAsk): void {
    const key = keyOf(workspaceId, ask)
    const view = this.views.get(key)
    if (!view) return
    this.views.delete(key)
    this.bytes -= view.size
  }
}

const keyOf = (workspaceId: string, a: GatewayAsk) => `${workspaceId}\u0001${a.agentId}\u0001${a.tool}\u0001${a.action}`
