import { jsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** The server's metrics in Prometheus' text format, for a signed-in caller (a scraper sends the API token). */
export const GET = jsonRoute(async ({ parley }) => {
  const { registry } = parley.metrics;
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType, "cache-control": "no-store" } });
});
