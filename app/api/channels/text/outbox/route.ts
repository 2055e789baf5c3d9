import { jsonRoute } from "@/lib/server/http/json-route";
import { AppError, describeZodError } from "@/lib/protocol/errors";
import { ChannelOutboxQuerySchema } from "@/lib/protocol/channels";

export const dynamic = "force-dynamic";

/** What the agent (and the system) said in a session after a cursor, for a channel adapter to relay. */
export const GET = jsonRoute(async ({ req, parley, caller }) => {
  const query = ChannelOutboxQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!query.success) throw new AppError("bad_request", describeZodError(query.error));
  await caller.see.session(query.data.sessionId);
  return parley.channelOutbox(query.data);
});
