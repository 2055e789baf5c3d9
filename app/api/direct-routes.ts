/**
 * The API routes on the question loop's path (start, ask, answer, poll), which server.ts serves
 * without Next's request pipeline (lib/server/http/direct-routes.ts). Each is its route file's own
 * export, so Next and the direct path run the same handler; every other route goes to Next.
 */
import type { RouteModule } from "@/lib/server/http/direct-routes";
import * as health from "./health/route";
import * as sessions from "./sessions/route";
import * as sessionMessages from "./sessions/[id]/messages/route";
import * as sessionRuns from "./sessions/[id]/runs/route";
import * as asks from "./asks/route";
import * as question from "./questions/[id]/route";
import * as questionReply from "./questions/[id]/reply/route";
import * as questionReject from "./questions/[id]/reject/route";
import * as run from "./runs/[id]/route";
import * as runStop from "./runs/[id]/stop/route";

export const DIRECT_ROUTES: Readonly<Record<string, RouteModule>> = {
  "/api/health": health,
  "/api/sessions": sessions,
  "/api/sessions/:id/messages": sessionMessages,
  "/api/sessions/:id/runs": sessionRuns,
  "/api/asks": asks,
  "/api/questions/:id": question,
  "/api/questions/:id/reply": questionReply,
  "/api/questions/:id/reject": questionReject,
  "/api/runs/:id": run,
  "/api/runs/:id/stop": runStop,
};
