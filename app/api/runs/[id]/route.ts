import { jsonRoute, one } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/** The run with its journal and the pending questions of its whole tree (children included). */
export const GET = jsonRoute<{ id: string }>(async ({ params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.run(id);
  return parley.runs.getRunDetail({ id });
});
