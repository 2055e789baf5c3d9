import { describe, expect, it } from "vitest";
import { isStdioServer, parseMcpServersFile } from "./mcp-servers";

const parse = (value: unknown) => parseMcpServersFile(JSON.stringify(value), "mcp.json");

describe("the PARLEY_MCP_SERVERS file", () => {
  it("reads stdio and HTTP servers by name, with their defaults", () => {
    const servers = parse({ servers: { deployer: { command: "node", args: ["s.mjs"], env: { TOKEN: "x" }, cwd: "tools" }, tickets: { url: "https://t.example.com/mcp" } } });
    expect(servers).toEqual({
      deployer: { command: "node", args: ["s.mjs"], env: { TOKEN: "x" }, cwd: "tools" },
      tickets: { url: "https://t.example.com/mcp", headers: {} },
    });
    expect(isStdioServer(servers.deployer!)).toBe(true);
    expect(isStdioServer(servers.tickets!)).toBe(false);
    expect(parse({ servers: { a: { command: "x" } } }).a).toEqual({ command: "x", args: [], env: {} });
  });

  it("refuses what is not such a file, naming the file and the problem", () => {
    expect(() => parseMcpServersFile("{", "mcp.json")).toThrow(/Invalid MCP servers file mcp\.json \(PARLEY_MCP_SERVERS\): not valid JSON/);
    expect(() => parse({ servers: { "bad name!": { command: "x" } } })).toThrow(/a server name/);
    expect(() => parse({ servers: { a: { command: "x", url: "https://x" } } })).toThrow(/stdio.*HTTP/);
    expect(() => parse({ servers: { a: { url: "ftp://x" } } })).toThrow(/mcp\.json/);
    expect(() => parse({ servers: { a: { command: "" } } })).toThrow(/mcp\.json/);
    expect(() => parse({ server: {} })).toThrow(/Expected \{ "servers"/);
  });
});
