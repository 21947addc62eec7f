/**
 * Text made fit for one line of a record a person reads (an approval's summary, a result's error):
 * shared by the SDK's agent.guard and the CLI's `growth mcp guard`.
 */

/** Control characters (the API refuses them) become spaces; runs of space become one. */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim()
}

/** At most `max` characters (code points, so no surrogate pair is cut), the last one `…` when cut. */
export function clip(text: string, max: number): string {
  const points = Array.from(text)
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`
}
