import { answeringAs } from "@/lib/server/access/answering-as";
import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";
import { PostMessageBodySchema } from "@/lib/protocol/rest";

export const dynamic = "force-dynamic";

/** Stores the message and answers with the run it started. */
export const POST = jsonRoute<{ id: string }>(
  async ({ req, params, parley, caller }) => {
    const sessionId = one(params.id);
    await caller.see.session(sessionId);
    const { text } = await readJson(req, PostMessageBodySchema);
    return parley.postMessage({ sessionId, text, answerer: answeringAs(caller) });
  },
  { status: 201 },
);
