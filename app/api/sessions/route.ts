import { jsonRoute, readJson } from "@/lib/server/http/json-route";
import { CreateSessionBodySchema } from "@/lib/protocol/rest";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(async ({ parley, caller }) => parley.sessions.listSessions({ ownerId: caller.ownerId }));

export const POST = jsonRoute(
  async ({ req, parley, caller }) => {
    const body = await readJson(req, CreateSessionBodySchema, { optional: true });
    return parley.sessions.createSession({ title: body.title, ownerId: caller.ownerId });
  },
  { status: 201 },
);
