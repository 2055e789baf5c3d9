import { jsonRoute } from "@/lib/server/http/json-route";
import { AuditQuerySchema, type AuditPage } from "@/lib/protocol/audit";
import { zodAppError } from "@/lib/protocol/errors";
import { auditViewer } from "@/lib/server/audit/audit-service";

export const dynamic = "force-dynamic";

/** Settled questions of the sessions the caller may see (an administrator: every one), oldest first by when they closed; `next` continues. */
export const GET = jsonRoute(async ({ req, parley, caller }): Promise<AuditPage> => {
  const query = AuditQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!query.success) throw zodAppError(query.error, { prefix: "Invalid audit query" });
  return parley.audit.read(auditViewer(caller), query.data);
});
