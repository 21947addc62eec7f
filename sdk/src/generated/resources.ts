/**
 * Generated from the server's OpenAPI document (its x-sdk-method and x-paging). Do not edit by
 * hand: run `npm run sdk:generate`. test/sdk/drift.test.ts fails when this file is out of date.
 */

import type { APIPromise } from '../api-promise.ts'
import type { Mode, Written } from '../mode.ts'
import type { PagePromise } from '../pagination.ts'
import type { RequestOptions } from '../request-options.ts'
import type { Body, Data, Item, Query } from '../operation-types.ts'

/** Every operation's method, by namespace, as the client has them. `M`: what kind of token it holds. */
export interface Resources<M extends Mode> {
  /**
   * Track an event.
   *
   * Report something a contact did in your own systems. It starts every active workflow listening for the event (compared without regard to capitals), one run each keeping the properties, and says how many it started (0 when none listens). The email must be a contact of this workspace (404). Each tracked event counts against the plan's trackedEvents allowance (402 plan_required past it).
   *
   * `POST /api/v1/track` (trackEvent)
   */
  track(body: Body<'trackEvent'>, options?: RequestOptions): APIPromise<Written<Data<'trackEvent'>, M>>
  missions: {
    /**
     * List missions.
     *
     * Every growth mission of the workspace with its measured progress and the automations working on it, newest first.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/missions` (listMissions)
     */
    list(query?: Query<'listMissions'>, options?: RequestOptions): PagePromise<Item<'listMissions'>>
  }
  decisions: {
    /**
     * List decisions.
     *
     * The decision ledger, newest first, paged with meta.nextCursor. Filter by missionId (404 if that mission is not in this workspace).
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/decisions` (listDecisions)
     */
    list(query?: Query<'listDecisions'>, options?: RequestOptions): PagePromise<Item<'listDecisions'>>
  }
  signals: {
    /**
     * List signals.
     *
     * What the product noticed in the business, newest first, each with the opportunity it speaks for. Open signals unless `status` says otherwise.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/signals` (listSignals)
     */
    list(query?: Query<'listSignals'>, options?: RequestOptions): PagePromise<Item<'listSignals'>>
  }
  opportunities: {
    /**
     * List opportunities.
     *
     * Things worth doing, in the order they are worth doing (worth, highest first; ties broken by id), with measured impact where there is one. Open ones unless `status` says otherwise; an open opportunity past its expiresAt is listed as expired.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/opportunities` (listOpportunities)
     */
    list(query?: Query<'listOpportunities'>, options?: RequestOptions): PagePromise<Item<'listOpportunities'>>
  }
  experiments: {
    /**
     * List experiments.
     *
     * Every hypothesis, newest first, with the state of its test and what the test said once decided.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/experiments` (listExperiments)
     */
    list(query?: Query<'listExperiments'>, options?: RequestOptions): PagePromise<Item<'listExperiments'>>
    /**
     * Record a hypothesis.
     *
     * Write a hypothesis against an A/B test or an email send before its test is decided. The subject and the expectation fit the kind: an A/B test (abt_...) shows a_better, b_better or no_difference; a hold-back of a send (snd_...) shows send_adds or no_difference. 404 if the test, send or decision is not in this workspace; 409 conflict if the test was already decided.
     *
     * `POST /api/v1/experiments` (createExperiment)
     */
    create(body: Body<'createExperiment'>, options?: RequestOptions): APIPromise<Written<Data<'createExperiment'>, M>>
  }
  outcomes: {
    /**
     * How predictions, findings and tests turned out.
     *
     * Aggregates only: how predictions held up by author, by measure and by stated confidence (calibration), why findings were turned down, and what tests showed. A section with one entry per author, measure or reason holds at most the 100 largest and says how many there are.
     *
     * `GET /api/v1/outcomes` (getOutcomes)
     */
    get(query?: Query<'getOutcomes'>, options?: RequestOptions): APIPromise<Data<'getOutcomes'>>
  }
  approvals: {
    /**
     * List approvals.
     *
     * Sends and agent requests waiting for, or given, a person's approval, newest first. Every status unless `status` says one. Paged with meta.nextCursor like the other long lists.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/approvals` (listApprovals)
     */
    list(query?: Query<'listApprovals'>, options?: RequestOptions): PagePromise<Item<'listApprovals'>>
  }
  actions: {
    /**
     * List proposed changes.
     *
     * Proposed changes, newest first, paged with meta.nextCursor: each with its kind and args, its planned effect in words and figures, whether the workspace limits allowed it, who proposed it, who decided it and what became of it. Every status when `status` is omitted.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/actions` (listActions)
     */
    list(query?: Query<'listActions'>, options?: RequestOptions): PagePromise<Item<'listActions'>>
    /**
     * Propose a change.
     *
     * Propose a change for a person to approve. It is planned (its effect in words and figures) and checked against the workspace's limits, the same limits the agent gateway applies: a proposal they refuse is recorded as `refused` with the reason (201); any other waits as `proposed`. Nothing here approves or carries out a change; a person does. An unknown kind is 400 listing the kinds; a bad arg is 400 naming it; an id in args not in this workspace is 404; a record whose state refuses the change (e.g. pausing a paused campaign) is 409.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - adjust_budget: the campaign has a daily budget, not zero, in the currency of args.dailyBudget, and the change leaves a budget that differs from today's.
     * - send_campaign: the campaign is an email or SMS campaign, sendAt is in the future, and the audience holds someone who can be contacted.
     * - create_discount: expiresAt is in the future.
     * - sendAt and expiresAt fall on or before 9999-12-31T23:59:59Z (in UTC).
     * - tag_contacts: the audience holds contacts.
     * - A segment used as an audience is one this service can evaluate (conditions on tags).
     *
     * `POST /api/v1/actions` (createAction)
     */
    create(body: Body<'createAction'>, options?: RequestOptions): APIPromise<Written<Data<'createAction'>, M>>
  }
  contacts: {
    /**
     * Add or update contacts.
     *
     * Up to 100 contacts a request, as an import does it: addresses are compared without regard to case; an address on the do-not-contact list is skipped; tags are merged; an existing contact keeps every field the request does not send. The answer says, per contact by its index, whether it was created, updated or skipped and why, and the totals. With listId (404 if not in this workspace) the contacts join that list. New contacts must fit the plan's contacts allowance: otherwise 402 plan_required naming what remains, and nothing is written.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - Each address at most once in a request, compared without regard to case.
     *
     * `POST /api/v1/contacts` (importContacts)
     */
    import(body: Body<'importContacts'>, options?: RequestOptions): APIPromise<Written<Data<'importContacts'>, M>>
  }
  customers: {
    /**
     * List customers.
     *
     * Buyers newest first, with order count and spend per currency; every stage unless `stage` says one.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/customers` (listCustomers)
     */
    list(query?: Query<'listCustomers'>, options?: RequestOptions): PagePromise<Item<'listCustomers'>>
  }
  revenue: {
    /**
     * Revenue per currency.
     *
     * Order-ledger revenue per currency over [from, to), with the share traced to marketing. Defaults to the last 30 days; at most 366 days at a time. Nothing is converted or added across currencies.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - from is not after to (a to alone earlier than 30 days ago is after the defaulted from).
     * - The span is at most 366 days.
     * - from and to fall in the years 0001 to 9999 in UTC.
     *
     * `GET /api/v1/revenue` (getRevenue)
     */
    get(query?: Query<'getRevenue'>, options?: RequestOptions): APIPromise<Data<'getRevenue'>>
  }
  usage: {
    /**
     * Allowances and API calls.
     *
     * Each monthly allowance of the workspace's plan (emails, sms, trackedEvents, agentRequests) and the standing contacts allowance, with what is used and what remains; and the API calls counted this month, with the date counting began.
     *
     * `GET /api/v1/usage` (getUsage)
     */
    get(query?: Query<'getUsage'>, options?: RequestOptions): APIPromise<Data<'getUsage'>>
  }
  connections: {
    /**
     * List connections.
     *
     * The connected store, ad accounts, email platform and social accounts, oldest first, each with whether it still delivers and since when it stopped, if it did.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/connections` (listConnections)
     */
    list(query?: Query<'listConnections'>, options?: RequestOptions): PagePromise<Item<'listConnections'>>
  }
  events: {
    /**
     * Poll events.
     *
     * The events a webhook can subscribe to, oldest first, in commit order. Pass `after` = the meta.nextCursor of the previous answer: every page that holds events carries meta.nextCursor (the position of its last event), and an empty page answers the cursor it was given, so a consumer polling from its last cursor sees every event exactly once, in order, including events committed while it was paging. Fewer events than `limit` means it has caught up. Filter with `type` (the cursor is bound to the filter).
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - after is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/events` (listEvents)
     */
    list(query?: Query<'listEvents'>, options?: RequestOptions): PagePromise<Item<'listEvents'>>
  }
  agents: {
    /**
     * List agents.
     *
     * The workspace's agents (the product's own and the workspace's), oldest first, with their permissions in words, the data they may use, their ceilings, and when each last acted.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/agents` (listAgents)
     */
    list(query?: Query<'listAgents'>, options?: RequestOptions): PagePromise<Item<'listAgents'>>
    /**
     * List agent tools.
     *
     * Every tool an agent can be permitted, in the order they were added, with each action: its risk, the data it uses, and whether it can be undone.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/agents/tools` (listAgentTools)
     */
    tools(query?: Query<'listAgentTools'>, options?: RequestOptions): PagePromise<Item<'listAgentTools'>>
    /**
     * List agent rules.
     *
     * The rules in force for agents, oldest first, each as a sentence and as the structure the gateway judges.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - cursor is a meta.nextCursor this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/agents/rules` (listAgentRules)
     */
    rules(query?: Query<'listAgentRules'>, options?: RequestOptions): PagePromise<Item<'listAgentRules'>>
    /**
     * List agent requests.
     *
     * Every gateway decision, refusals included, newest first, each with the result reported for it (or null). Filter by status (the decision) and agentId (404 if that agent is not in this workspace); page with meta.nextBefore.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - before is a meta.nextBefore this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/agents/requests` (listAgentRequests)
     */
    requests(query?: Query<'listAgentRequests'>, options?: RequestOptions): PagePromise<Item<'listAgentRequests'>>
  }
  agent: {
    /**
     * Ask whether the agent may act.
     *
     * The gateway decides against the stop switch, the tool, the agent's permissions, the data the action uses, the agent's ceilings and the workspace's limits, the risk, and the owner's rules, in that order; every check reports. decision is allowed (mayProceed, valid until expiresAt), denied, or requires_approval (approvalId names the approval waiting for a person; once approved, the same request is allowed once within 24 hours). A denial is an answer (201), not an error. Every decision is recorded (GET /agents/requests) and counts against the agentRequests allowance (402 plan_required past it). An unknown fact name is 400.
     *
     * `POST /api/v1/agent/authorize` (authorizeAgentAction)
     */
    authorize(body: Body<'authorizeAgentAction'>, options?: RequestOptions): APIPromise<Data<'authorizeAgentAction'>>
    /**
     * Report what became of an allowed action.
     *
     * Recorded against an authorization of this agent (404 otherwise) and kept as unverified: a claim, not a check. A result for an authorization that was not allowed, a second result, or one after the authorization expired is 409 conflict, and the refusal is recorded.
     *
     * `POST /api/v1/agent/result` (reportAgentResult)
     */
    result(body: Body<'reportAgentResult'>, options?: RequestOptions): APIPromise<Data<'reportAgentResult'>>
    /**
     * The calling agent: what it may do and ask for.
     *
     * The agent's permissions in words, the data it may use, its ceilings, its own rate limit and what remains, and whether the workspace has stopped its agents (and why).
     *
     * `GET /api/v1/agent/me` (getAgentSelf)
     */
    me(query?: Query<'getAgentSelf'>, options?: RequestOptions): APIPromise<Data<'getAgentSelf'>>
  }
  logs: {
    /**
     * List the request log.
     *
     * Every call the workspace's credentials made in the last 7 days, refusals included, newest first: method, path, operation, status, the error's code and message, duration, which credential, the Idempotency-Key and whether the answer was a replay. `id` is the request id the answer carried. Filter by status (2xx, 4xx, 5xx or one status), operation and credentialId (404 if that credential is not this workspace's); page with meta.nextBefore. A call shows here within about a second.
     *
     * Rules the schema cannot state (each refused with 400 naming it):
     * - operation names an operation of this API: an operationId of this document.
     * - before is a meta.nextBefore this API issued for this list, with the same filter, in this workspace.
     *
     * `GET /api/v1/logs` (listRequestLogs)
     */
    list(query?: Query<'listRequestLogs'>, options?: RequestOptions): PagePromise<Item<'listRequestLogs'>>
  }
}
