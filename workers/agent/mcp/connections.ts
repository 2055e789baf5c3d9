import { createMCPClient, ElicitationRequestSchema, type ElicitationRequest, type ElicitResult, type ListToolsResult, type MCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { isStdioServer, type McpServerConfig } from "../../../lib/protocol/mcp-servers";

/** Answers a server's `elicitation/create` for the call that leased the connection. */
export type Elicitor = (request: ElicitationRequest) => Promise<ElicitResult>;

/** One open connection to a server, leased to one tool call at a time. */
export interface Connection {
  client: MCPClient;
  /** Who answers the server's elicitations now: the call holding the lease (none: declined). */
  elicitor: Elicitor | null;
}

/** Opens a connection whose elicitations go to `elicit` (a seam for tests). */
export type OpenClient = (name: string, config: McpServerConfig, elicit: Elicitor) => Promise<MCPClient>;

/** How long the initialize handshake may take before the server counts as failed. */
const OPEN_TIMEOUT_MS = 20_000;
/** How long a failed start is remembered before a later run tries again. */
export const RETRY_AFTER_MS = 30_000;

export const openClient: OpenClient = async (name, config, elicit) => {
  const transport = isStdioServer(config)
    ? new Experimental_StdioMCPTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd })
    : ({ type: "http", url: config.url, headers: config.headers } as const);
  const client = await createMCPClient({
    transport,
    clientName: "parley",
    // Form mode only: an empty elicitation capability means forms (MCP 2025-11-25).
    capabilities: { elicitation: {} },
    initializationOptions: { timeout: OPEN_TIMEOUT_MS },
    onUncaughtError: (err) => console.error(`MCP server ${name}: ${err instanceof Error ? err.message : String(err)}`),
  });
  client.onElicitationRequest(ElicitationRequestSchema, elicit);
  return client;
};

/**
 * The connections of one worker process to one server: opened when a call needs one and none is
 * free, kept for later calls and runs, closed when the worker goes. Each is leased to one tool call
 * at a time, so an elicitation that arrives on it belongs to that call (and to that call's run):
 * the protocol does not say which request an elicitation is for.
 */
export class ServerConnections {
  private idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private failure: { message: string; at: number } | null = null;
  private tools: ListToolsResult["tools"] | null = null;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly openClientFn: OpenClient = openClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Why the server is not available now (its start failed recently), or null. */
  unavailable(): string | null {
    if (this.failure && this.now() - this.failure.at < RETRY_AFTER_MS) return this.failure.message;
    return null;
  }

  /** Leases a connection: a free one, or a new one (throws when the server cannot be started or reached). */
  async acquire(): Promise<Connection> {
    if (this.closed) throw new Error(`The MCP server ${this.name} is closed: the worker is stopping.`);
    const free = this.idle.pop();
    if (free) return free;
    const recent = this.unavailable();
    if (recent) throw new Error(recent);
    const connection: Connection = { client: null as unknown as MCPClient, elicitor: null };
    try {
      connection.client = await this.openClientFn(this.name, this.config, (request) => (connection.elicitor ? connection.elicitor(request) : Promise.resolve({ action: "decline" })));
    } catch (err) {
      const message = `The MCP server ${this.name} could not be started: ${err instanceof Error ? err.message : String(err)}`;
      this.failure = { message, at: this.now() };
      throw new Error(message, { cause: err });
    }
    this.failure = null;
    if (this.closed) {
      await connection.client.close().catch(() => {});
      throw new Error(`The MCP server ${this.name} is closed: the worker is stopping.`);
    }
    this.open.add(connection);
    return connection;
  }

  /** Gives a lease back: kept for the next call, or closed when the call failed on it (it may be broken). */
  release(connection: Connection, healthy: boolean): void {
    connection.elicitor = null;
    if (healthy && !this.closed && this.open.has(connection)) {
      this.idle.push(connection);
      return;
    }
    void this.drop(connection);
  }

  /** The server's tools, listed once per worker process (again after a connection broke). */
  async listTools(): Promise<ListToolsResult["tools"]> {
    if (this.tools) return this.tools;
    const connection = await this.acquire();
    try {
      const tools: ListToolsResult["tools"] = [];
      let page = await connection.client.listTools();
      tools.push(...page.tools);
      while (page.nextCursor) {
        page = await connection.client.listTools({ params: { cursor: page.nextCursor } });
        tools.push(...page.tools);
      }
      this.release(connection, true);
      this.tools = tools;
      return tools;
    } catch (err) {
      this.release(connection, false);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open].map((c) => this.drop(c)));
  }

  private drop(connection: Connection): Promise<void> {
    this.open.delete(connection);
    this.idle = this.idle.filter((c) => c !== connection);
    this.tools = null;
    return connection.client.close().catch(() => {});
  }
}
