import { jsonRoute, one } from "@/lib/server/http/json-route";
import { QuestionReadQuerySchema } from "@/lib/protocol/asks";
import { parseOrThrow } from "@/lib/protocol/errors";

export const dynamic = "force-dynamic";

/** A question; with `?wait=SECONDS` (≤ 60) the request is held until it settles or the wait ends. */
export const GET = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.question(id);
  const { wait } = parseOrThrow(QuestionReadQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  return wait ? parley.asks.settled(id, wait) : parley.questions.getQuestion({ id });
});
