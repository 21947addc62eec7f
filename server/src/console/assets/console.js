// The console's own few lines (served under its strict Content-Security-Policy; the pages work
// without them). 1. Times in the person's time zone: every <time datetime> is rewritten with the
// browser's zone and language (the server writes UTC, which stays without JavaScript). 2. Live
// updates: a page whose <main> has data-live listens to /console/live (server-sent events) and,
// when something it shows changes, fetches itself again and puts the new <main> in place (not
// while the person is filling in one of its forms: then once they leave it), and its status line
// says what changed ("1 new request waits for a decision."). 3. Copy
// buttons beside a secret shown once. 4. A form that cannot be undone (retire, revoke, remove,
// disable, changing one's own role) asks first: its data-confirm is the question. 5. After a
// refused form, the focus is on what to correct.
;(() => {
  const format = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' })
  function localTimes(root) {
    for (const t of root.querySelectorAll('time[datetime]')) {
      const at = new Date(t.getAttribute('datetime'))
      if (Number.isNaN(at.getTime())) continue
      t.textContent = format.format(at)
      t.title = `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
    }
  }
  localTimes(document)

  // 5. A page that answers a refused form puts the focus where the correction is: on the field the
  // refusal describes (its aria-describedby names the alert), else on the alert itself, so the
  // keyboard and a screen reader start there instead of at the top of the page, and the page scrolls
  // to it (the form's action named its answer, #answer or #tested, which a refusal's page does not
  // have: the page opens at its top). After the load: a page opened at a #fragment has the browser
  // move the focus to that fragment once loaded, which would undo an earlier focus().
  const refusal = document.querySelector('main [role="alert"]')
  if (refusal) {
    const field = refusal.id ? document.querySelector(`[aria-describedby~="${CSS.escape(refusal.id)}"]`) : null
    if (!field) refusal.setAttribute('tabindex', '-1')
    const focus = () => setTimeout(() => (field ?? refusal).focus(), 0)
    if (document.readyState === 'complete') focus()
    else window.addEventListener('load', focus, { once: true })
  }

  const main = document.querySelector('main[data-live]')
  if (!main || !window.EventSource || !window.fetch) return
  const watching = main.dataset.live
  // What the person is doing is never replaced under them: while a field of the page is focused or
  // holds what they typed, ticked or chose, the update waits (the status says so, visibly) and is
  // made once they leave the form as it was; a focused link or button is focused again after it.
  const FIELDS = 'input:not([type=hidden]), textarea, select'
  // A single select none of whose options is marked selected shows its first: that is its default
  // (comparing each option's selected with defaultSelected took the first for a change, and held
  // every update of a page with such a filter for ever).
  const defaultIndex = (el) => {
    const marked = [...el.options].findLastIndex((o) => o.defaultSelected)
    return marked >= 0 || el.multiple ? marked : 0
  }
  const changed = (el) =>
    el instanceof HTMLSelectElement
      ? el.multiple
        ? [...el.options].some((o) => o.selected !== o.defaultSelected)
        : el.selectedIndex !== defaultIndex(el)
      : el.type === 'checkbox' || el.type === 'radio'
        ? el.checked !== el.defaultChecked
        : el.value !== el.defaultValue
  const busyWithForm = () => [...main.querySelectorAll(FIELDS)].some((el) => el === document.activeElement || changed(el))
  /** The element focused before an update, found again in the new content (same id, or same link, or same form and button). */
  function sameIn(root, el) {
    if (el.id) return root.querySelector(`#${CSS.escape(el.id)}`)
    if (el.matches('a[href]')) return [...root.querySelectorAll('a[href]')].find((a) => a.getAttribute('href') === el.getAttribute('href')) ?? null
    const action = el.form?.getAttribute('action')
    return [...root.querySelectorAll(el.tagName)].find((b) => b.form?.getAttribute('action') === action && b.textContent === el.textContent) ?? null
  }
  // What an update says (the status line a screen reader reads): what changed among the things
  // waiting for a decision, counted, the item's new state, or the new requests the gateway decided by
  // itself; "Updated" and the time only when the page shows no such change. The ids named by the
  // changes since the last update tell an item decided elsewhere from one that expired (expiry is no event).
  const changedIds = new Set()
  const NOUNS = { approvals: ['request', 'requests'], actions: ['proposed change', 'proposed changes'] }
  /** The links to what waits for a decision (the inbox's cards, a request's "Waiting for a person"): href -> when it expires. */
  const waitingIn = (root) =>
    new Map([...root.querySelectorAll('a[href^="/console/approvals/"], a[href^="/console/actions/"]')].map((a) => [a.getAttribute('href'), Date.parse(a.closest('article')?.querySelector('[data-expires]')?.dataset.expires ?? '')]))
  /**
   * The agent requests the page lists (Requests, an agent's page) that need no person: id -> how it
   * was decided, in the card's word (allowed, denied). One that waits is told by its link above.
   */
  const answeredIn = (root) =>
    new Map(
      [...root.querySelectorAll('article[aria-label^="Request "] .kind:not(.decision-requires_approval)')].map((k) => [
        k.closest('article').getAttribute('aria-label'),
        k.textContent.trim().toLowerCase(),
      ]),
    )
  /** "1 new agent request: allowed." or "3 new agent requests: 2 allowed and 1 denied."; empty for none. */
  function newRequests(words) {
    if (!words.length) return ''
    const n = new Map()
    for (const w of words) n.set(w, (n.get(w) ?? 0) + 1)
    const how = [...n].map(([w, count]) => (words.length === 1 ? w : `${count} ${w}`)).join(' and ')
    return `${words.length} new agent request${words.length === 1 ? '' : 's'}: ${how}.`
  }
  /** An item page's decision or expiry, in words (its notice under the title). */
  const settledIn = (root) =>
    [...(root.querySelector(':scope > div.notice[role="status"]')?.querySelectorAll('p') ?? [])]
      .map((p) => p.textContent.replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .map((t) => (/[.!?]$/.test(t) ? t : `${t}.`))
      .join(' ')
  /** "2 requests and 1 proposed change", `new` before each noun when asked; and whether it is more than one. */
  function counted(hrefs, fresh) {
    const n = new Map()
    for (const href of hrefs) {
      const kind = href.split('/')[2]
      n.set(kind, (n.get(kind) ?? 0) + 1)
    }
    const words = [...n].map(([kind, count]) => `${count} ${fresh ? 'new ' : ''}${NOUNS[kind][count === 1 ? 0 : 1]}`).join(' and ')
    return { words, many: hrefs.length > 1 }
  }
  function whatChanged(before, after, ids) {
    const said = []
    const arrived = [...after.waiting.keys()].filter((h) => !before.waiting.has(h))
    const left = [...before.waiting.keys()].filter((h) => !after.waiting.has(h))
    const decided = left.filter((h) => ids.has(h.split('/')[3]))
    const expired = left.filter((h) => !decided.includes(h) && before.waiting.get(h) <= Date.now())
    const gone = left.filter((h) => !decided.includes(h) && !expired.includes(h))
    const say = (hrefs, fresh, one, many) => {
      if (!hrefs.length) return
      const c = counted(hrefs, fresh)
      said.push(`${c.words} ${c.many ? many : one}.`)
    }
    say(arrived, true, 'waits for a decision', 'wait for a decision')
    say(decided, false, 'was decided elsewhere', 'were decided elsewhere')
    say(expired, false, 'expired without a decision', 'expired without a decision')
    say(gone, false, 'no longer waits', 'no longer wait')
    // New requests the agent gateway decided by itself (the Requests page, an agent's page), by how.
    const answered = newRequests([...after.answered].filter(([id]) => !before.answered.has(id)).map(([, word]) => word))
    if (answered) said.push(answered)
    const text = said.join(' ')
    if (after.settled && after.settled !== before.settled) return text ? `${after.settled} ${text}` : after.settled
    return text || `Updated ${format.format(new Date())}`
  }
  let held = false
  main.addEventListener('focusout', () => setTimeout(() => held && !busyWithForm() && void refresh(), 0))
  main.addEventListener('change', () => held && !busyWithForm() && void refresh())
  let busy = false
  let again = false
  async function refresh() {
    if (busy) {
      again = true
      return
    }
    busy = true
    try {
      const status = document.getElementById('live-status')
      if (busyWithForm()) {
        held = true
        if (status) {
          status.className = 'panel notice'
          status.textContent = 'Something on this page changed elsewhere. It updates once you leave the form you are filling in (or send it); what you typed stays until then.'
        }
        return
      }
      // The changes this fetch sees: those named before it starts (one named meanwhile waits for the next).
      const ids = new Set(changedIds)
      const res = await fetch(location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      if (!res.ok || res.redirected) return
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector('main')
      if (!fresh) return
      // The person may have begun typing while the page was fetched.
      if (busyWithForm()) return void (again = true)
      const focused = main.contains(document.activeElement) ? document.activeElement : null
      const before = { waiting: waitingIn(main), settled: settledIn(main), answered: answeredIn(main) }
      main.replaceChildren(...fresh.childNodes)
      held = false
      localTimes(main)
      watchExpiry()
      if (focused) sameIn(main, focused)?.focus({ preventScroll: true })
      if (status) {
        main.prepend(status)
        status.className = 'visually-hidden'
        status.textContent = whatChanged(before, { waiting: waitingIn(main), settled: settledIn(main), answered: answeredIn(main) }, ids)
      }
      for (const id of ids) changedIds.delete(id)
    } catch {
      // The page stays as it is; the next change tries again.
    } finally {
      busy = false
      if (again) {
        again = false
        void refresh()
      }
    }
  }
  // What expires is no event: the page fetches itself again when the first thing it shows expires.
  let expiry = null
  function watchExpiry() {
    clearTimeout(expiry)
    const times = [...main.querySelectorAll('[data-expires]')].map((e) => Date.parse(e.dataset.expires)).filter((t) => t > 0)
    if (!times.length) return
    const wait = Math.min(Math.max(Math.min(...times) - Date.now() + 1000, 1000), 2 ** 31 - 1)
    expiry = setTimeout(() => void refresh(), wait)
  }
  watchExpiry()

  const status = document.createElement('p')
  status.id = 'live-status'
  status.className = 'visually-hidden'
  status.setAttribute('role', 'status')
  main.prepend(status)
  let opened = false
  const source = new EventSource('/console/live')
  source.addEventListener('ready', () => {
    // After a reconnect, whatever happened meanwhile is fetched once.
    if (opened) void refresh()
    opened = true
    main.dataset.liveReady = 'yes'
  })
  source.addEventListener('change', (e) => {
    const change = JSON.parse(e.data)
    for (const id of change.ids) changedIds.add(id)
    if (watching === 'all' || change.ids.includes(watching)) void refresh()
  })
})()

// 3. A copy button (data-copy names the input it copies: a secret shown once). Copied, the focus
// goes back to the button, which says so (select() moved it to the field, where a screen reader
// would read the secret aloud); when the clipboard refuses, it stays on the field, selected.
for (const b of document.querySelectorAll('button[data-copy]')) {
  b.addEventListener('click', async () => {
    const input = document.getElementById(b.dataset.copy)
    if (!input) return
    input.select()
    try {
      await navigator.clipboard.writeText(input.value)
      b.textContent = 'Copied'
      b.focus()
    } catch {
      b.textContent = 'Selected: copy with your keyboard'
    }
  })
}

// 4. A form with data-confirm is sent only once the person says yes (the live update's new forms too);
// with data-confirm-if="field=value", only when that field holds that value (a rotation with no overlap).
const asksNow = (form) => {
  const when = form.dataset.confirmIf
  if (!when) return true
  const at = when.indexOf('=')
  const [name, want] = [when.slice(0, at), when.slice(at + 1)]
  const value = String(new FormData(form).get(name) ?? '').trim()
  return value === want || (value !== '' && Number(value) === Number(want))
}
document.addEventListener('submit', (e) => {
  const form = e.target
  if (form instanceof HTMLFormElement && form.dataset.confirm && asksNow(form) && !window.confirm(form.dataset.confirm)) e.preventDefault()
})
