import { jsonRoute, one } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** The run with its journal and the pending questions of its whole tree (children included). */
export const GET = jsonRoute<{ id: string }>(async ({ params, parley }) => parley.runs.getRunDetail({ id: one(params.id) }));
