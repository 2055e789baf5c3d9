import { jsonRoute, one } from "@/lib/server/http/json-route";
import { QuestionReadQuerySchema } from "@/lib/protocol/asks";
import { parseOrThrow } from "@/lib/protocol/errors";
import type { QuestionRead } from "@/lib/protocol/webhooks";

export const dynamic = "force-dynamic";

/** A question, with its callback's deliveries; with `?wait=SECONDS` (≤ 60) the request is held until it settles or the wait ends. */
export const GET = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }): Promise<QuestionRead> => {
  const id = one(params.id);
  await caller.see.question(id);
  const { wait } = parseOrThrow(QuestionReadQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  // A client that goes stops the wait.
  const question = wait ? await parley.asks.settled(id, wait, req.signal) : await parley.questions.getQuestion({ id });
  return { ...question, deliveries: await parley.webhooks.deliveriesOf(id) };
});
