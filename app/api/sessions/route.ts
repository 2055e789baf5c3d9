import { jsonRoute, readJson } from "@/lib/server/http/json-route";
import { CreateSessionBodySchema } from "@/lib/protocol/rest";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(async ({ parley }) => parley.sessions.listSessions());

export const POST = jsonRoute(
  async ({ req, parley }) => {
    const body = await readJson(req, CreateSessionBodySchema, { optional: true });
    return parley.sessions.createSession({ title: body.title });
  },
  { status: 201 },
);
