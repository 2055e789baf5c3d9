import { ClientSurfaceSchema, SURFACE_HEADER } from "../../protocol/rest";
import type { RunStarter } from "../../protocol/entities";
import type { Parley } from "../app";
import type { Caller } from "./json-route";
import type { RouteRequest } from "./route-request";

/**
 * Who starts a run through a route, as the server knows it: the REST API and the credential it
 * checked (an API token by its name, as it is named now). What the client says it is
 * (`X-Parley-Surface: cli`) is kept apart, as its word.
 */
export async function runStarterOf(req: Pick<RouteRequest, "headers">, caller: Caller, parley: Parley): Promise<RunStarter> {
  const says = ClientSurfaceSchema.safeParse(req.headers.get(SURFACE_HEADER));
  const clientSays = says.success ? { clientSays: says.data } : {};
  if (caller.via !== "api_token") return { surface: "rest", via: caller.via, ...clientSays };
  const id = caller.credential.replace(/^api:/, "");
  const tokenName = await parley.access.apiTokens.nameOf(id);
  return { surface: "rest", via: "api_token", tokenId: id, ...(tokenName !== null && { tokenName }), ...clientSays };
}
