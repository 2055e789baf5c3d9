import { jsonRoute } from "@/lib/server/http/json-route";
import { runStarterOf } from "@/lib/server/http/run-starter";

export const dynamic = "force-dynamic";

/** Parley's MCP server (Streamable HTTP): `ask_user`, `request_approval` and `permission_prompt` for agents outside Parley. */
const mcp = jsonRoute(async ({ req, parley, caller }) => {
  const startedBy = { ...(await runStarterOf(req, caller, parley)), surface: "mcp" as const };
  return parley.mcp.handle(await req.fetchRequest(), { ownerId: caller.ownerId, credential: caller.credential, startedBy, hold: caller.hold });
});

export const GET = mcp;
export const POST = mcp;
export const DELETE = mcp;
