/**
 * Text built from what a caller sent (error messages naming keys, paths, reasons) stays small
 * however large the input: a few items, each clipped, the whole bounded.
 */

/** The longest error message built from a list of reasons. */
export const MAX_ERROR_MESSAGE_CHARS = 1_000;
/** How many reasons an error message lists before "… and N more". */
export const MAX_ERROR_ITEMS = 5;
/** The longest single reason (or key, or path) in an error message. */
export const MAX_ERROR_ITEM_CHARS = 200;

/** `text` cut to at most `max` characters, marked with "…" when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

/**
 * The first few of `items`, each clipped, joined with `separator`, then "… and N more" for the
 * rest; never longer than `maxChars` (items that do not fit count as more). `total` is how many
 * items there are when the caller passes only the first few.
 */
export function joinBounded(
  items: readonly string[],
  { separator = "; ", maxItems = MAX_ERROR_ITEMS, maxItemChars = MAX_ERROR_ITEM_CHARS, maxChars = MAX_ERROR_MESSAGE_CHARS, total = items.length } = {},
): string {
  const more = (n: number) => (n > 0 ? `${separator}… and ${n} more` : "");
  // Room for the longest possible "… and N more".
  const budget = maxChars - more(total).length;
  let text = "";
  let shown = 0;
  for (const item of items.slice(0, maxItems)) {
    const piece = clip(item, maxItemChars);
    if (shown === 0) text = clip(piece, Math.max(1, budget));
    else if (text.length + separator.length + piece.length > budget) break;
    else text += separator + piece;
    shown++;
  }
  return clip(text + more(total - shown), maxChars);
}

/** An id as an error message quotes it: clipped, so an id of a megabyte does not come back whole. */
export const quoteId = (id: string): string => `"${clip(id, 100)}"`;
