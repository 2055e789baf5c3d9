import { z } from "zod";
import { describeZodError } from "./errors";

/**
 * The MCP servers Parley's own agent uses (`PARLEY_MCP_SERVERS`: the path of a JSON file of this
 * shape). Each is started (stdio) or reached (Streamable HTTP) by the agent's worker process; its
 * tools are offered to the model as `mcp__<server>__<tool>`, behind the permission rules.
 *
 *   { "servers": {
 *       "deployer": { "command": "node", "args": ["deploy-server.mjs"], "env": { "TOKEN": "…" }, "cwd": "tools" },
 *       "tickets": { "url": "https://tickets.example.com/mcp", "headers": { "Authorization": "Bearer …" } } } }
 */

/** A server's name: part of its tools' names (`mcp__<name>__<tool>`), so short and plain. */
export const McpServerNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/, "a server name: letters, digits and -, at most 32, starting with a letter or digit");

const EnvMapSchema = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable's name"), z.string().max(10_000));

export const StdioMcpServerSchema = z.strictObject({
  command: z.string().trim().min(1, "command may not be empty").max(1_000),
  args: z.array(z.string().max(10_000)).max(200).default([]),
  /** Added to the few variables the server inherits (PATH, HOME …): the worker's own environment is not passed on. */
  env: EnvMapSchema.default({}),
  /** Where the server starts: relative to the folder of the file that names it. */
  cwd: z.string().trim().min(1).max(1_000).optional(),
});

export const HttpMcpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: "url must be an http:// or https:// address" }),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, "a header's name"), z.string().max(10_000)).default({}),
});

export const McpServerConfigSchema = z.union([StdioMcpServerSchema, HttpMcpServerSchema], {
  error: 'each server is { "command", "args"?, "env"?, "cwd"? } (stdio) or { "url", "headers"? } (HTTP)',
});

export const McpServersFileSchema = z.strictObject({
  servers: z
    .record(z.string(), McpServerConfigSchema)
    .refine((s) => Object.keys(s).length <= 20, "at most 20 servers")
    // Checked here rather than as the record's key schema, whose error would not say what a name may be.
    .superRefine((servers, ctx) => {
      for (const name of Object.keys(servers)) {
        const checked = McpServerNameSchema.safeParse(name);
        if (!checked.success) ctx.addIssue({ code: "custom", path: [name], message: checked.error.issues[0]!.message });
      }
    }),
});

export type StdioMcpServer = z.output<typeof StdioMcpServerSchema>;
export type HttpMcpServer = z.output<typeof HttpMcpServerSchema>;
export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type McpServers = Record<string, McpServerConfig>;

export const isStdioServer = (server: McpServerConfig): server is StdioMcpServer => "command" in server;

/** Parses the file's text; `file` only names it in errors. */
export function parseMcpServersFile(text: string, file: string): McpServers {
  const fail = (problem: string) => new Error(`Invalid MCP servers file ${file} (PARLEY_MCP_SERVERS): ${problem}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw fail(`not valid JSON (${(err as Error).message})`);
  }
  const parsed = McpServersFileSchema.safeParse(data);
  if (!parsed.success) throw fail(`${describeZodError(parsed.error)}. Expected { "servers": { "<name>": { "command": "node", "args": ["server.mjs"] } | { "url": "https://…/mcp" } } }`);
  return parsed.data.servers;
}
