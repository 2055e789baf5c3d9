import type { ToolPreview } from "./permissions";

/** An approval's preview as plain text, by its shape: what surfaces without the web card's own views show (Slack, an email's page). */
const PREVIEW_TEXT: { [K in ToolPreview["type"]]: (p: Extract<ToolPreview, { type: K }>) => string } = {
  command: (p) => `$ ${p.command}${p.cwd ? `\n(in ${p.cwd})` : ""}`,
  diff: (p) => `${p.path}\n${p.diff}`,
  list: (p) => p.items.join("\n"),
  text: (p) => p.text,
};

export const previewText = (p: ToolPreview): string => (PREVIEW_TEXT[p.type] as (p: ToolPreview) => string)(p);
