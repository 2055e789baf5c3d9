import { z } from "zod";

/** The chat's model as the server reports it (`GET /api/auth/session`'s `model`): what the header shows, and its tooltip. */
export const ModelInfoSchema = z.object({
  /** "llama3.2 · Ollama", "gpt-4o-mini · OpenAI", "Offline script". */
  label: z.string().max(200),
  /** A sentence: which server, or for the offline script how to connect a real model. */
  detail: z.string().max(500),
  scripted: z.boolean(),
});
export type ModelInfo = z.infer<typeof ModelInfoSchema>;
