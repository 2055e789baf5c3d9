import type { Runtime } from "./runtime";

export interface AgentFunction {
  /** Registered name, e.g. `deploy`; used by `POST /api/sessions/{id}/runs`. */
  name: string;
  /** One line shown by `GET /api/functions`. */
  description: string;
  run(rt: Runtime, input: unknown): Promise<unknown>;
}

export function defineAgentFunction(fn: AgentFunction): AgentFunction {
  return fn;
}
