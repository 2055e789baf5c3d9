import { AppError } from "@/lib/protocol/errors";
import { PersonEmailBodySchema, type PersonEmail } from "@/lib/protocol/email";
import { jsonRoute, one, readJson, type Caller } from "@/lib/server/http/json-route";
import type { Parley } from "@/lib/server/parley";

export const dynamic = "force-dynamic";

/** A person's address and whether questions are mailed to them: an administrator reads anyone's, a person their own. */
export const GET = jsonRoute<{ name: string }>(async ({ params, parley, caller }): Promise<PersonEmail> => parley.personEmails.get(await personFor(one(params.name), parley, caller)));

/**
 * A person's email address and whether questions they may answer are mailed to them
 * (`npx parley user set NAME --email ADDRESS --email-questions on|off`). An administrator sets
 * anyone's, a person their own. 409 `email_taken` for another person's address.
 */
export const PUT = jsonRoute<{ name: string }>(async ({ req, params, parley, caller }): Promise<PersonEmail> => {
  const { email, questions } = await readJson(req, PersonEmailBodySchema);
  const person = await personFor(one(params.name), parley, caller);
  return parley.personEmails.set(person, email, questions);
});

async function personFor(name: string, parley: Parley, caller: Caller): Promise<string> {
  const person = await parley.people.idOf(name);
  if (!caller.admin && person !== caller.ownerId) throw new AppError("forbidden", "Only an administrator can read or set other people's email; you may your own.");
  return person;
}
