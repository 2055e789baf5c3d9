import { z } from "zod";
import { MAX_JSON_BYTES } from "./json-input";

/** Limits fixed when a run starts; each has a default and an allowed range. */
export const RunPolicySchema = z
  .object({
    /** Questions one run may ask. */
    maxRequests: z.number().int().min(1).max(32).default(8),
    /** Characters in a question's prompt. */
    maxPromptChars: z.number().int().min(1).max(16_384).default(4_096),
    /** UTF-8 bytes of a reply, as JSON. */
    maxReplyBytes: z.number().int().min(1).max(MAX_JSON_BYTES).default(65_536),
    /** Execution time in workers; time waiting for a person does not count. */
    maxActiveMs: z.number().int().min(1_000).max(86_400_000).default(1_800_000),
  })
  .strict();
export type RunPolicy = z.infer<typeof RunPolicySchema>;
export type RunPolicyInput = z.input<typeof RunPolicySchema>;

export const DEFAULT_POLICY: RunPolicy = RunPolicySchema.parse({});
