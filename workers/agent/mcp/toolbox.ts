import type { CallToolResult, ListToolsResult } from "@ai-sdk/mcp";
import type { SubjectKind } from "../../../lib/protocol/permissions";
import type { McpServers } from "../../../lib/protocol/mcp-servers";
import type { Runtime } from "../../runtime";
import { externalTool, subjectKindOf } from "../../tools/external-tool";
import { clip } from "../../tools/define";
import { ServerConnections, openClient, type OpenClient } from "./connections";
import { elicitThroughForm, replayForms, type AskedForm } from "./elicitation";
import { failedCall, mcpCallResultOf, type McpCallResult } from "./result";
import { mcpToolName } from "./tool-names";

type McpToolDefinition = ListToolsResult["tools"][number];

/** An MCP server's tool as the agent offers it. */
export interface McpTool {
  /** `mcp__<server>__<tool>`: what the model calls and the rules name. */
  name: string;
  server: string;
  definition: McpToolDefinition;
  description: string;
  subjectKind: SubjectKind;
}

/** The tools of every server that answered, and a sentence for each that did not. */
export interface McpListing {
  tools: Map<string, McpTool>;
  unavailable: string[];
}

/** What a call's journaled step keeps: the result, and the forms the call asked (for replay). */
interface RecordedCall {
  result: McpCallResult;
  forms: AskedForm[];
}

const MAX_DESCRIPTION = 1_000;

/**
 * The MCP servers' tools for Parley's own agent: listed from each server (a server that cannot be
 * started is left out, and said so), and each call run through `rt.tool` (an approval decided by
 * the permission rules first, then the call in a journaled step) with the server's elicitations
 * shown as form cards of the same run.
 */
export class McpToolbox {
  private readonly servers: Map<string, ServerConnections>;

  constructor(config: McpServers, open: OpenClient = openClient) {
    this.servers = new Map(Object.entries(config).map(([name, server]) => [name, new ServerConnections(name, server, open)]));
  }

  get serverNames(): string[] {
    return [...this.servers.keys()];
  }

  async list(): Promise<McpListing> {
    const tools = new Map<string, McpTool>();
    const unavailable: string[] = [];
    const listed = await Promise.all(
      [...this.servers.values()].map(async (server) => {
        try {
          return { server, definitions: await server.listTools() };
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          console.error(message);
          unavailable.push(message.startsWith("The MCP server") ? message : `The MCP server ${server.name} is not available: ${message}`);
          return { server, definitions: [] };
        }
      }),
    );
    for (const { server, definitions } of listed) {
      for (const definition of definitions) {
        const name = mcpToolName(server.name, definition.name);
        if (tools.has(name)) {
          console.error(`MCP server ${server.name}: its tool ${definition.name} is left out: its name as ${name} is taken by another of its tools.`);
          continue;
        }
        tools.set(name, {
          name,
          server: server.name,
          definition,
          description: clip(definition.description?.trim() || definition.title || `${definition.name} (MCP server ${server.name})`, MAX_DESCRIPTION),
          subjectKind: subjectKindOf(definition.inputSchema.properties ?? {}),
        });
      }
    }
    return { tools, unavailable };
  }

  /**
   * One call of the model: asks for approval (`rt.tool`: rules first), then calls the server in the
   * approved call's journaled step. Forms the server asks for meanwhile are questions of the run,
   * journaled after that step's position; when a replay finds the step recorded, the tool is not
   * called again and its forms take their positions again from the record. Throws what `rt.tool`
   * throws (ToolDenied …); a failed call is a result the model reads.
   */
  async call(rt: Runtime, tool: McpTool, input: unknown, onEdited?: (input: unknown) => void): Promise<McpCallResult> {
    const where = { server: tool.server, tool: tool.definition.name };
    const definition = externalTool(tool.name, { subjectKind: tool.subjectKind, description: tool.description, editSchema: tool.definition.inputSchema });
    let ran = false;
    const recorded = await rt.tool<RecordedCall>(
      definition,
      input,
      async (checked: Record<string, unknown>) => {
        ran = true;
        const forms: AskedForm[] = [];
        const result = await this.callOnServer(rt, tool, checked, forms);
        return { result, forms };
      },
      onEdited && { onEdited },
    );
    if (!ran) await replayForms(rt, recorded.forms, where);
    return recorded.result;
  }

  private async callOnServer(rt: Runtime, tool: McpTool, input: Record<string, unknown>, forms: AskedForm[]): Promise<McpCallResult> {
    const server = this.servers.get(tool.server);
    if (!server) return failedCall(`The MCP server ${tool.server} is not configured any more.`);
    let connection;
    try {
      connection = await server.acquire();
    } catch (err) {
      return failedCall(err instanceof Error ? err.message : String(err));
    }
    const where = { server: tool.server, tool: tool.definition.name };
    connection.elicitor = (request) => elicitThroughForm(rt, request, where, forms);
    let healthy = false;
    try {
      const execute = connection.client.toolsFromDefinitions({ tools: [tool.definition] })[tool.definition.name]!.execute;
      // The MCP client's execute returns the call's result (never a stream).
      const result = (await execute(input, { toolCallId: tool.name, messages: [], abortSignal: rt.signal })) as CallToolResult;
      healthy = true;
      return mcpCallResultOf(result);
    } catch (err) {
      if (rt.signal.aborted) throw err;
      return failedCall(`The call to the MCP server ${tool.server} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      server.release(connection, healthy);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.close()));
  }
}
