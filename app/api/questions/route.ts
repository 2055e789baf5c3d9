import { jsonRoute } from "@/lib/server/http/json-route";
import { AppError, describeZodError } from "@/lib/protocol/errors";
import { QuestionsQuerySchema } from "@/lib/protocol/rest";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(async ({ req, parley }) => {
  const query = QuestionsQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!query.success) throw new AppError("bad_request", describeZodError(query.error));
  await parley.sessions.getSession({ id: query.data.session_id });
  return parley.questions.listPending({ sessionId: query.data.session_id });
});
