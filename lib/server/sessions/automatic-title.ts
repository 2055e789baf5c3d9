import type { AgentFunctionInfo } from "../../protocol/entities";
import { ownerLabel } from "../../protocol/question-notification";

/** What titling needs of a loaded function: its name and its chat command. */
export type TitledFunction = Pick<AgentFunctionInfo, "name"> & { command?: string | null };

const MAX_TITLE = 60;

/**
 * The title a chat message gives an untitled session: its first line of text, clipped. A slash
 * command that starts a function (`/coffee`, or the function's own name `/order-coffee`) titles it
 * after that function ("Order coffee"); any other slash command (`/help`, an unknown one) does not.
 */
export function automaticTitle(text: string, functions: readonly TitledFunction[] = []): string | null {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return null;
  if (flat.startsWith("/")) return commandTitle(flat, functions);
  return flat.length > MAX_TITLE ? `${flat.slice(0, MAX_TITLE - 1).trimEnd()}…` : flat;
}

/** The function a slash command starts, as a person reads its name; null when it starts none. Matches the chat function's parse. */
function commandTitle(text: string, functions: readonly TitledFunction[]): string | null {
  const word = /^\/([a-z][a-z0-9-]*)(?=\s|$)/i.exec(text)?.[1]?.toLowerCase();
  if (!word) return null;
  // Definitions carry a one-sentence description, not a title: the humanised name reads as one.
  const fn = functions.find((f) => f.command && (f.command === word || f.name === word));
  return fn ? ownerLabel(fn.name) : null;
}
