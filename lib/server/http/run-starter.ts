import type { RunStarter } from "../../protocol/entities";
import type { Parley } from "../app";
import { surfaceOf, type Caller } from "./json-route";

/** Who starts a run through a route: the CLI or the REST API, and the credential (an API token by its name, as it is named now). */
export async function runStarterOf(req: Request, caller: Caller, parley: Parley): Promise<RunStarter> {
  const surface = surfaceOf(req);
  if (caller.via !== "api_token") return { surface, via: caller.via };
  const id = caller.credential.replace(/^api:/, "");
  const tokenName = await parley.access.apiTokens.nameOf(id);
  return { surface, via: "api_token", ...(tokenName !== null && { tokenName }) };
}
