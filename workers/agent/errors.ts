import { APICallError, RetryError } from "ai";
import { AgentError } from "../runtime";
import { redact } from "../../lib/log/redact";

export { redact };

/**
 * Provider failures as messages for the transcript. The API key never appears in one: every text
 * that leaves here passes through `redact`, which also masks `Bearer …` headers and `sk-…` keys.
 */

/** What kind of failure a provider error is. */
export type ProviderFailure = "auth" | "rate_limit" | "unreachable" | "context_length" | "malformed" | "server" | "other";

function classify(err: unknown): { kind: ProviderFailure; status?: number; detail: string } {
  if (RetryError.isInstance(err)) return classify(err.lastError);
  const message = err instanceof Error ? err.message : String(err);
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const body = `${err.responseBody ?? ""} ${message}`.toLowerCase();
    if (status === 401 || status === 403) return { kind: "auth", status, detail: message };
    if (status === 429) return { kind: "rate_limit", status, detail: message };
    if (/context[_ ]length|maximum context|too many tokens|prompt is too long|context window/.test(body)) return { kind: "context_length", status, detail: message };
    if (status === undefined) return { kind: "unreachable", detail: message };
    if (status >= 500) return { kind: "server", status, detail: message };
    return { kind: "other", status, detail: message };
  }
  const name = err instanceof Error ? err.name : "";
  const cause = err instanceof Error && err.cause instanceof Error ? `${err.cause.message} ${(err.cause as { code?: string }).code ?? ""}` : "";
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|fetch failed|Cannot connect/i.test(`${message} ${cause}`)) return { kind: "unreachable", detail: message };
  if (/JSONParse|TypeValidation|InvalidResponseData|NoContentGenerated|EmptyResponseBody/.test(name) || /malformed|invalid json|unexpected token/i.test(message)) {
    return { kind: "malformed", detail: message };
  }
  return { kind: "other", detail: message };
}

/** A provider error as an AgentError whose message the person can act on, the key redacted. */
export function providerError(err: unknown, { provider, apiKey }: { provider: string; apiKey?: string }): AgentError {
  if (err instanceof AgentError) return new AgentError(redact(err.message, [apiKey]));
  const { kind, status, detail } = classify(err);
  const clipped = redact(detail, [apiKey]).replace(/\s+/g, " ").slice(0, 300);
  const text: Record<ProviderFailure, string> = {
    auth: `The model provider (${provider}) refused the API key (HTTP ${status}). Check OPENAI_API_KEY.`,
    rate_limit: `The model provider (${provider}) is rate limiting requests (HTTP 429). Wait a moment and retry.`,
    unreachable: `Could not reach the model provider (${provider}). Is the server at OPENAI_BASE_URL running? (${clipped})`,
    context_length: `The conversation is too long for the model (${provider}). Start a new session or shorten the message.`,
    malformed: `The model provider (${provider}) sent a reply Parley could not read (${clipped}).`,
    server: `The model provider (${provider}) failed (HTTP ${status}). Retry in a moment.`,
    other: `The model call failed (${provider}): ${clipped}`,
  };
  return new AgentError(text[kind], { cause: new Error(redact(err instanceof Error ? err.message : String(err), [apiKey])) });
}
