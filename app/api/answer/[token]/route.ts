import { AppError } from "@/lib/protocol/errors";
import { MAX_BODY_BYTES } from "@/lib/protocol/rest";
import { answerPagePath } from "@/lib/server/email/answer-link";
import { one, publicJsonRoute } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/**
 * An email's answer page's form (a plain HTML form: form-encoded): answers as the link's person,
 * then back to the page, which says what happened. The link's token is the credential; the gate
 * refuses a POST from another site (Origin, Sec-Fetch-Site). An answer the page cannot take goes
 * back with its reason.
 */
export const POST = publicJsonRoute<{ token: string }>(async ({ req, params, parley }) => {
  if (!parley.email) throw new AppError("not_found:route", "Email is not set up on this server (docs/email.md).");
  const token = one(params.token);
  const body = await req.bodyText(MAX_BODY_BYTES);
  if (body === null) throw new AppError("payload_too_large", `The form is larger than ${MAX_BODY_BYTES} bytes.`);
  let to = answerPagePath(token);
  try {
    await parley.email.answers.answer(token, new URLSearchParams(body));
  } catch (err) {
    const error = AppError.from(err);
    if (error.status >= 500) throw err;
    to += `?error=${encodeURIComponent(error.message.slice(0, 500))}`;
  }
  return new Response(null, { status: 303, headers: { location: to, "cache-control": "no-store" } });
});
