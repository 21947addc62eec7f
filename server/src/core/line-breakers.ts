/**
 * What breaks a line or acts on a terminal, as a regular expression's character class: the C0
 * controls (tab and NUL included), DEL, the C1 controls (NEL among them) and the Unicode line and
 * paragraph separators. The request schemas refuse them in one-line text; the mail puts text
 * someone else wrote on one line by replacing them.
 */
export const LINE_BREAKERS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029'

/**
 * The bidi embeddings, overrides and isolates, as a character class: invisible, they turn around
 * the text after them where it is laid out right to left (an agent's summary reversing the words
 * that follow it). The console isolates text someone else wrote (`<bdi>`); the CLI shows these as
 * escapes; the mail, plain text, leaves them out.
 */
export const BIDI_CONTROLS = '\\u202a-\\u202e\\u2066-\\u2069'
