import { API_TOKEN_PATTERN, SESSION_COOKIE } from "../protocol/access";

/** An API token anywhere in a text: its id stays (`parley token list` shows it), its secret goes. */
const API_TOKEN = new RegExp(`\\b${API_TOKEN_PATTERN.source.replace(/^\^|\$$/g, "")}`, "g");
const SESSION_COOKIE_VALUE = new RegExp(`(${SESSION_COOKIE}=)[^;\\s"'\\\\]+`, "g");

/**
 * A text with no secret left in it: the `secrets` given (4 characters or more), `Bearer …`
 * credentials, `sk-…` keys, API tokens' secrets, `token=` query values and session cookies. The
 * text may be JSON: a replacement never swallows a backslash or a quote.
 */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out
    .replace(/(Bearer\s+)[^\s"',\\]+/gi, "$1[redacted]")
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, "[redacted]")
    .replace(API_TOKEN, "pat_$1_[redacted]")
    .replace(/([?&]token=)[^&#\s"'\\]+/gi, "$1[redacted]")
    .replace(SESSION_COOKIE_VALUE, "$1[redacted]");
}
