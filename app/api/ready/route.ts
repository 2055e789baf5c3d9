import { publicJsonRoute } from "@/lib/server/http/json-route";
import { checkDatabase, isReady } from "@/lib/server/health";
import type { Ready } from "@/lib/protocol/health";

export const dynamic = "force-dynamic";

/** For a load balancer (public, no details): 200 while this node can serve, 503 while its database or Redis cannot be reached. */
export const GET = publicJsonRoute(async ({ parley }) => {
  const database = await checkDatabase(parley.db.exec);
  const body: Ready = { ready: isReady(database, parley.cluster.status()) };
  return Response.json(body, { status: body.ready ? 200 : 503 });
});
