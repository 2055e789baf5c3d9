import type { Parley } from "../app";
import type { RouteRequest } from "./route-request";

/** The origin of the sign-in links this server hands out: where people reach it, else the origin this request came to. */
export const linkOrigin = (req: Pick<RouteRequest, "url">, parley: Parley): string => parley.origin?.() ?? new URL(req.url).origin;
