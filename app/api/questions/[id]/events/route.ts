import { jsonRoute, one } from "@/lib/server/http/json-route";
import { MAX_ASK_WAIT_SECONDS } from "@/lib/protocol/asks";
import type { Question } from "@/lib/protocol/question";

export const dynamic = "force-dynamic";

const STREAM_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-store, no-transform", connection: "keep-alive" };

/** What goes down the stream: the question as it is now (`question`), then, once it settles, `settled`; a comment line keeps it open meanwhile. */
const event = (name: "question" | "settled", question: Question) => `event: ${name}\ndata: ${JSON.stringify(question)}\n\n`;

/** A question's settlement as server-sent events: the question now, then `settled` once it is answered, declined, timed out or withdrawn (then the stream ends). */
export const GET = jsonRoute<{ id: string }>(async ({ req, params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.question(id);
  const first = await parley.questions.getQuestion({ id });
  const encoder = new TextEncoder();
  let gone = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => !gone && controller.enqueue(encoder.encode(text));
      try {
        send(event("question", first));
        let question = first;
        while (question.status === "pending" && !gone && !req.signal.aborted) {
          question = await parley.asks.settled(id, MAX_ASK_WAIT_SECONDS / 4);
          if (question.status === "pending") send(": still waiting\n\n");
        }
        if (question.status !== "pending") send(event("settled", question));
        if (!gone) controller.close();
      } catch (err) {
        if (!gone) controller.error(err);
      }
    },
    // The client went away: the wait in progress ends at its next look, and nothing more is sent.
    cancel: () => void (gone = true),
  });
  return new Response(stream, { headers: STREAM_HEADERS });
});

/** HEAD: the stream's headers, and no stream left open behind a request that reads none. */
export const HEAD = jsonRoute<{ id: string }>(async ({ params, caller }) => {
  await caller.see.question(one(params.id));
  return new Response(null, { headers: STREAM_HEADERS });
});
