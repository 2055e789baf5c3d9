import { jsonRoute, one } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

export const GET = jsonRoute<{ id: string }>(async ({ params, parley, caller }) => {
  const id = one(params.id);
  await caller.see.question(id);
  return parley.questions.getQuestion({ id });
});
