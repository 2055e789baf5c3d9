import { jsonRoute } from "@/lib/server/http/json-route";
import { AppError, describeZodError } from "@/lib/protocol/errors";
import { QuestionsQuerySchema } from "@/lib/protocol/rest";

export const dynamic = "force-dynamic";

/** A session's pending questions; or, by `run_id` and `pending_id`, that one question in any state (the CLI's lookup). */
export const GET = jsonRoute(async ({ req, parley, caller }) => {
  const query = QuestionsQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!query.success) throw new AppError("bad_request", describeZodError(query.error));
  const { session_id, run_id, pending_id } = query.data;
  if (session_id === undefined) {
    await caller.see.run(run_id!);
    return [await parley.questions.findByPendingId({ runId: run_id!, pendingId: pending_id! })];
  }
  await caller.see.session(session_id);
  return parley.questions.listPending({ sessionId: session_id });
});
