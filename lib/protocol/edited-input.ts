/** "Edit and allow", on every surface that offers it (the web card, Slack): the JSON an answerer typed, read as a tool's input. */
export function editedJson(text: string): { ok: true; input: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Not valid JSON: ${(err as Error).message}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, error: "The input must be a JSON object ({ … })." };
  return { ok: true, input: value as Record<string, unknown> };
}
