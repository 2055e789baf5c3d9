import { AppError } from "@/lib/protocol/errors";
import { PersonEmailBodySchema, type PersonEmail } from "@/lib/protocol/email";
import { jsonRoute, one, readJson } from "@/lib/server/http/json-route";

export const dynamic = "force-dynamic";

/**
 * A person's email address and whether questions they may answer are mailed to them
 * (`npx parley user set NAME --email ADDRESS --email-questions on|off`). An administrator sets
 * anyone's, a person their own. 409 `email_taken` for another person's address.
 */
export const PUT = jsonRoute<{ name: string }>(async ({ req, params, parley, caller }): Promise<PersonEmail> => {
  const { email, questions } = await readJson(req, PersonEmailBodySchema);
  const person = await parley.people.idOf(one(params.name));
  if (!caller.admin && person !== caller.ownerId) throw new AppError("forbidden", "Only an administrator can set other people's email; you may set your own.");
  return parley.personEmails.set(person, email, questions);
});
