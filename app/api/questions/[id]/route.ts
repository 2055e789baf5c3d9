import { jsonRoute, one } from "@/lib/server/http/json-route";
import { QuestionReadQuerySchema } from "@/lib/protocol/asks";
import { parseOrThrow } from "@/lib/protocol/errors";
import type { QuestionRead } from "@/lib/protocol/webhooks";

export const dynamic = "force-dynamic";

/**
 * A question, with its callback's deliveries; with `?wait=SECONDS` (≤ 60) the request is held until
 * it settles or the wait ends, or ends with 401 `token_revoked` / 403 `no_longer_a_member` when the
 * caller's credential or membership does meanwhile.
 */
export const GET = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }): Promise<QuestionRead> => {
  const id = one(params.id);
  await caller.see.question(id);
  const { wait } = parseOrThrow(QuestionReadQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  let question = await parley.questions.getQuestion({ id });
  if (wait && question.status === "pending") {
    const held = caller.hold(question.sessionId);
    try {
      // A client that goes stops the wait; so does its credential or membership ending.
      question = await parley.asks.settled(id, wait, AbortSignal.any([req.signal, held.signal]));
      if (held.signal.aborted) throw held.signal.reason;
    } finally {
      held.release();
    }
  }
  return { ...question, deliveries: await parley.webhooks.deliveriesOf(id) };
});
