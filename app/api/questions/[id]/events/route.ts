import { jsonRoute, one } from "@/lib/server/http/json-route";
import { MAX_ASK_WAIT_SECONDS } from "@/lib/protocol/asks";
import type { Question } from "@/lib/protocol/question";
import { AppError } from "@/lib/protocol/errors";

export const dynamic = "force-dynamic";

const STREAM_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-store, no-transform", connection: "keep-alive" };

/** What goes down the stream: the question as it is now (`question`), then, once it settles, `settled`; a comment line keeps it open meanwhile. */
const event = (name: "question" | "settled", question: Question) => `event: ${name}\ndata: ${JSON.stringify(question)}\n\n`;
/** The stream's end when the caller's credential or membership ended first: `event: error` with the typed error, as a REST error body. */
const errorEvent = (error: AppError) => `event: error\ndata: ${JSON.stringify({ error: error.toWire() })}\n\n`;

/**
 * A question's settlement as server-sent events: the question now, then `settled` once it is
 * answered, declined, timed out or withdrawn (then the stream ends). When the caller's credential
 * or membership ends first, `error` (`token_revoked`, `no_longer_a_member`) ends it, never a later answer.
 */
export const GET = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.question(id);
  const first = await parley.questions.getQuestion({ id });
  const encoder = new TextEncoder();
  const held = caller.hold(first.sessionId);
  const signal = AbortSignal.any([req.signal, held.signal]);
  let gone = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => !gone && controller.enqueue(encoder.encode(text));
      try {
        send(event("question", first));
        let question = first;
        while (question.status === "pending" && !gone && !signal.aborted) {
          question = await parley.asks.settled(id, MAX_ASK_WAIT_SECONDS / 4, signal);
          if (question.status === "pending" && !signal.aborted) send(": still waiting\n\n");
        }
        if (held.signal.aborted) send(errorEvent(AppError.from(held.signal.reason)));
        else if (question.status !== "pending") send(event("settled", question));
        if (!gone) controller.close();
      } catch (err) {
        if (!gone) controller.error(err);
      } finally {
        held.release();
      }
    },
    // The client went away: the wait in progress ends at once, and nothing more is sent.
    cancel: () => void (gone = true),
  });
  return new Response(stream, { headers: STREAM_HEADERS });
});

/** HEAD: the stream's headers, and no stream left open behind a request that reads none. */
export const HEAD = jsonRoute<{ id: string }>(async ({ params, caller }) => {
  await caller.see.question(one(params.id));
  return new Response(null, { headers: STREAM_HEADERS });
});
