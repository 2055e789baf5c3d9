import { SURFACE_HEADER } from "../../protocol/rest";
import type { RestSurface } from "../../protocol/surfaces";
import type { RouteRequest } from "./route-request";

/** Where a REST answer is recorded as given from: a notification's button says so (`X-Parley-Surface: push`), anything else is REST. */
export const replySurfaceOf = (req: Pick<RouteRequest, "headers">): RestSurface => (req.headers.get(SURFACE_HEADER) === "push" ? "push" : "rest");
