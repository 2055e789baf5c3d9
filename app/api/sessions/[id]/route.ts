import { jsonRoute, one } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

export const GET = jsonRoute<{ id: string }>(async ({ params, parley }) => parley.sessions.getSnapshot({ id: one(params.id) }));
