import type { CallToolResult } from "@ai-sdk/mcp";
import type { JsonValue } from "../../../lib/protocol/question";
import { clip } from "../../tools/define";

/** What an MCP tool's call returned, as its journaled step keeps it (images and blobs only named). */
export interface McpCallResult {
  isError: boolean;
  text: string;
  structured?: JsonValue;
}

/** A result's text the model reads: enough of a long one, not all. */
const MAX_RESULT_CHARS = 20_000;

const str = (value: unknown): string => (typeof value === "string" ? value : "");

function partText(part: Record<string, unknown>): string {
  switch (part.type) {
    case "text":
      return str(part.text);
    case "image":
    case "audio":
      return `[${str(part.type)} ${str(part.mimeType)}]`;
    case "resource": {
      const resource = (part.resource ?? {}) as Record<string, unknown>;
      return typeof resource.text === "string" ? resource.text : `[resource ${str(resource.uri)}]`;
    }
    case "resource_link":
      return `[resource ${str(part.uri)}]`;
    default:
      return "";
  }
}

/** The call's result as JSON the journal keeps and the model reads. */
export function mcpCallResultOf(result: CallToolResult): McpCallResult {
  if ("toolResult" in result) return { isError: false, text: clip(JSON.stringify(result.toolResult ?? null), MAX_RESULT_CHARS) };
  const text = result.content
    .map((p) => partText(p as Record<string, unknown>))
    .filter(Boolean)
    .join("\n");
  const structured = result.structuredContent === undefined ? undefined : (JSON.parse(JSON.stringify(result.structuredContent)) as JsonValue);
  const shown = text || (structured !== undefined ? JSON.stringify(structured) : "");
  return { isError: result.isError === true, text: clip(shown, MAX_RESULT_CHARS), ...(structured !== undefined && JSON.stringify(structured).length <= MAX_RESULT_CHARS ? { structured } : {}) };
}

/** A call that did not get a result (the server failed, the connection broke): the model is told, the run goes on. */
export const failedCall = (message: string): McpCallResult => ({ isError: true, text: clip(message, 2_000) });

/** What the model sees of a call's result. */
export function modelTextOf(name: string, result: McpCallResult): string {
  if (result.isError) return `${name} failed: ${result.text || "(no message)"}`;
  return result.text || "(the tool returned nothing)";
}
