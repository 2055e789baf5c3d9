import { jsonRoute, one } from "@/lib/server/http/json-route";
import { AppError, describeZodError } from "@/lib/protocol/errors";
import { HistoryQuerySchema } from "@/lib/protocol/entities";

export const dynamic = "force-dynamic";

/** The page of the session's history before `before` (a snapshot's or a page's cursor), oldest first, with the next cursor. */
export const GET = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.session(id);
  const query = HistoryQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!query.success) throw new AppError("bad_request", describeZodError(query.error));
  return parley.sessions.getHistory({ id, before: query.data.before });
});
