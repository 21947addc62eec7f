/**
 * Limits are counted in fixed windows of the clock: an hour for the rate limits and the sign-in
 * limits, a minute for failed authentications from one address (server/src/http/rate-limit.ts,
 * server/src/domain/sign-in-limits.ts). A count starts again when its window turns. A test that
 * counts up to a limit and expects the refusal, or reads one count after another, must do all of it
 * inside one window, or it fails for the clock and not for the code: on the hour, the sixth link of
 * "five an hour" is the new hour's first, and is mailed.
 *
 * `withinOneWindow` waits out the window's last `margin` milliseconds when the clock is in them (so
 * it waits `margin` at most), and what follows then has at least `margin` before the count starts
 * again. The margin is what the test's counting takes on a slow machine; the wait and the counting
 * together must fit the test's time-out.
 */
export const HOUR_MS = 3_600_000
export const MINUTE_MS = 60_000

export async function withinOneWindow(windowMs = HOUR_MS, margin = 15_000): Promise<void> {
  if (margin >= windowMs) throw new Error(`a margin of ${margin} ms does not fit a window of ${windowMs} ms`)
  const left = windowMs - (Date.now() % windowMs)
  if (left < margin) await Bun.sleep(left + 50)
}
