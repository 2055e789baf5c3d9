import type { AgentFunction } from "../runtime";
import { chat } from "./chat";
import { demoFunctions } from "./demo-functions";
import { testFunctions } from "./test-functions";

/** Every agent function a run can name. Keep this module free of heavy imports: the server reads it too. */
export const agentFunctions: readonly AgentFunction[] = [
  chat,
  ...demoFunctions,
  ...(process.env.PARLEY_TEST_FUNCTIONS === "1" ? testFunctions : []),
];

const byName = new Map(agentFunctions.map((fn) => [fn.name, fn]));

export function findAgentFunction(name: string): AgentFunction | undefined {
  return byName.get(name);
}

/** The function that answers chat messages. */
export const CHAT_FUNCTION = chat.name;
