/** The items of a comma-separated setting or flag (`a, b,,c` → `["a", "b", "c"]`): trimmed, empty ones dropped. */
export const commaList = (text: string): string[] =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
