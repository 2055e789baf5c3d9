import type { ElicitationRequest, ElicitResult } from "@ai-sdk/mcp";
import { parseFormSchema } from "../../../lib/protocol/forms";
import { AskRefused, RunCancelled, type FormResult, type Runtime } from "../../runtime";

/** A form an MCP tool's call asked, as its journaled step keeps it: a replay asks (claims) it again at the same place. */
export interface AskedForm {
  message: string;
  schema: Record<string, unknown>;
}

/** A form's end as MCP elicitation's result: answered → accept, declined → decline, unanswered or dismissed → cancel. */
export function elicitResultOf(result: FormResult): ElicitResult {
  switch (result.action) {
    case "accept":
      return { action: "accept", content: result.content };
    case "decline":
      return { action: "decline" };
    case "cancel":
      return { action: "cancel" };
  }
}

/** The card's line under the message: who asks, and for which call. */
export const elicitationDetail = (server: string, tool: string) => `The MCP server ${server} asks this while its tool ${tool} runs.`;

/**
 * Answers one `elicitation/create` of an MCP tool's call with a Parley form card (`rt.form`). Only
 * form mode: a URL elicitation is declined. A run nobody can answer cancels. A schema Parley cannot
 * show as a form fails the request with the reason (the server reads it as an error). Each form
 * asked is appended to `asked`, in order, as it takes its journal position.
 */
export async function elicitThroughForm(rt: Runtime, request: ElicitationRequest, where: { server: string; tool: string }, asked: AskedForm[]): Promise<ElicitResult> {
  const { message, requestedSchema } = request.params;
  const mode = (request.params as { mode?: unknown }).mode;
  if (mode !== undefined && mode !== "form") return { action: "decline" };
  const parsed = parseFormSchema(requestedSchema);
  if (!parsed.ok) throw new Error(`Parley cannot show this form: ${parsed.error}`);
  if (!rt.canAsk()) return { action: "cancel" };
  const schema = requestedSchema as Record<string, unknown>;
  asked.push({ message, schema });
  try {
    return elicitResultOf(await rt.form(message, schema, { detail: elicitationDetail(where.server, where.tool) }));
  } catch (err) {
    // The run is stopping (or the card went with it): the tool's call is abandoned too.
    if (err instanceof RunCancelled) return { action: "cancel" };
    throw err;
  }
}

/**
 * A replayed run whose tool step the journal has: the forms that call asked take their positions
 * again (answered already, nothing is shown), so what the run does next lands where it did before.
 */
export async function replayForms(rt: Runtime, asked: readonly AskedForm[], where: { server: string; tool: string }): Promise<void> {
  for (const form of asked) {
    try {
      await rt.form(form.message, form.schema, { detail: elicitationDetail(where.server, where.tool) });
    } catch (err) {
      // The server refused it the first time too (the call got an error then): its position is taken all the same.
      if (!(err instanceof AskRefused)) throw err;
    }
  }
}
