import { jsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(async ({ parley }) => parley.listFunctions());
