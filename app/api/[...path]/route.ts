import { errorResponse } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

const notFound = (req: Request) => errorResponse({ code: "not_found:route", message: `No API route ${req.method} ${new URL(req.url).pathname}.` }, 404);

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
