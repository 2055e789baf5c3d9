import { LOCAL_OWNER } from "../protocol/access";
import type { PersonRenamed } from "../protocol/display-names";
import { signInLinkUrl, type AddPersonResult, type NewSignInLinkResult, type People, type Person, type RemovePersonResult } from "../protocol/teams";
import { createApiTokens } from "../server/access/api-tokens";
import { createPeople } from "../server/people/people-service";
import type { Db } from "../server/store/db/client";
import { createServerClient, ServerUnreachable, type FoundServer, type ServerClient } from "./server-client";
import { USER_USAGE } from "./usage";
import { AppError } from "../protocol/errors";
import { SlackUserIdSchema, type SlackLinked } from "../protocol/slack";
import { createSlackStore } from "../server/store/slack/slack-store";
import { EmailAddressSchema, type PersonEmail } from "../protocol/email";
import { createPersonEmails } from "../server/email/person-emails";

export interface UserCommandContext {
  /** The running server, if any (asked only once the command line is known to be right). */
  findServer: () => Promise<FoundServer | null>;
  /** The server was named (--server, PARLEY_URL): not reaching it is an error, not a reason to write the database. */
  explicit: boolean;
  inDatabase: <T>(work: (db: Db) => Promise<T>) => Promise<T>;
  /** The origin of a link made with no server running: where a server started here would be reached. */
  origin: string;
  usage: (message: string) => Error;
}

type Outcome<T> = { result: T; text: string };

/**
 * `parley user add|list|remove|link|rename`: through the running server when there is one (a removed
 * person's sockets close at once, and the other nodes are told); otherwise in the database, where
 * a running server notices within a second (and closes the sockets at its next check).
 */
export interface UserFlags {
  admin: boolean;
  slack?: string;
  /** `--email ADDRESS|off`. */
  email?: string;
  /** `--email-questions on|off`. */
  emailQuestions?: string;
}

export async function userCommand(args: string[], { admin, slack, email, emailQuestions }: UserFlags, ctx: UserCommandContext): Promise<Outcome<unknown>> {
  const [sub, name, ...extra] = args;
  const needName = (usage: string) => {
    if (!name || extra.length > 0) throw ctx.usage(`Usage: parley user ${usage}`);
    return name;
  };
  if (admin && sub !== "add") throw ctx.usage("--admin goes with parley user add NAME --admin");
  if (slack !== undefined && sub !== "link") throw ctx.usage("--slack goes with parley user link NAME --slack U…");
  if ((email !== undefined && sub !== "add" && sub !== "set") || (emailQuestions !== undefined && sub !== "set")) {
    throw ctx.usage("--email goes with parley user add NAME --email ADDRESS, or parley user set NAME [--email ADDRESS|off] [--email-questions on|off]");
  }
  switch (sub) {
    case "add": {
      const added = await add(needName("add NAME [--admin] [--email ADDRESS]"), admin, ctx);
      if (email === undefined) return added;
      const set = await setEmail(added.result.person.name, email, undefined, ctx);
      return { result: { ...added.result, email: set.result }, text: `${added.text}\n\n${set.text}` };
    }
    case "set": {
      if (email === undefined && emailQuestions === undefined) throw ctx.usage("Usage: parley user set NAME [--email ADDRESS|off] [--email-questions on|off]");
      return setEmail(needName("set NAME [--email ADDRESS|off] [--email-questions on|off]"), email, emailQuestions, ctx);
    }
    case "list":
      if (name) throw ctx.usage("Usage: parley user list");
      return list(ctx);
    case "remove":
      return remove(needName("remove NAME"), ctx);
    case "link":
      return slack === undefined ? link(needName("link NAME"), ctx) : linkSlack(needName("link NAME --slack U…|off"), slack, ctx);
    case "rename": {
      const [newName, ...more] = extra;
      if (!name || !newName || more.length > 0) throw ctx.usage("Usage: parley user rename NAME NEW");
      return rename(name, newName, ctx);
    }
    default:
      throw ctx.usage(`Usage:\n${USER_USAGE}`);
  }
}

/** The work through the server when one runs (and answers), else in the database; which it was. */
async function either<T>(
  ctx: UserCommandContext,
  remote: (client: ServerClient) => Promise<T>,
  local: (people: ReturnType<typeof createPeople>) => Promise<T>,
): Promise<{ result: T; viaServer: boolean }> {
  const server = await ctx.findServer();
  if (server) {
    try {
      return { result: await remote(createServerClient(server)), viaServer: true };
    } catch (err) {
      if (!(err instanceof ServerUnreachable) || ctx.explicit) throw err;
    }
  }
  return { result: await ctx.inDatabase((db) => local(createPeople({ db, apiTokens: createApiTokens(db) }))), viaServer: false };
}

const offlineNote = (origin: string) =>
  `\n\nNo server is running: the link names ${origin}, where a server started here is reached (the first of PARLEY_ALLOWED_ORIGINS, else HOST and PORT). If people reach it at another address, change that part.`;

const linkText = (url: string, expiresAt: string) => `  ${url}\n\nIt signs them in once, until ${expiresAt}. Send it to them alone.`;

async function add(name: string, admin: boolean, ctx: UserCommandContext): Promise<Outcome<AddPersonResult>> {
  const { result, viaServer } = await either(
    ctx,
    (client) => client.addPerson({ name, admin }),
    async (people) => {
      const { person, link, expiresAt } = await people.add(name, { admin, addedBy: LOCAL_OWNER });
      return { person, signInLink: signInLinkUrl(ctx.origin, link), expiresAt };
    },
  );
  const who = `${result.person.name}${result.person.admin ? " (an administrator)" : ""}`;
  return { result, text: `Added ${who}. Their sign-in link:\n\n${linkText(result.signInLink, result.expiresAt)}${viaServer ? "" : offlineNote(ctx.origin)}` };
}

const describePerson = (p: Person) => `${p.name}${p.displayName === p.name ? "" : ` (shown as ${p.displayName})`}${p.admin ? "  administrator" : ""}  added ${p.createdAt}`;

async function list(ctx: UserCommandContext): Promise<Outcome<People>> {
  const { result } = await either(
    ctx,
    (client) => client.listPeople(),
    async (people) => ({ people: await people.list() }),
  );
  const text = result.people.length ? result.people.map(describePerson).join("\n") : `No people yet: only the administrator ("${LOCAL_OWNER}", the server token). Add one with: parley user add NAME`;
  return { result, text };
}

async function remove(name: string, ctx: UserCommandContext): Promise<Outcome<RemovePersonResult>> {
  const { result, viaServer } = await either(
    ctx,
    (client) => client.removePerson(name),
    (people) => people.remove(name),
  );
  const tokens = result.revokedTokens.length === 1 ? "1 API token" : `${result.revokedTokens.length} API tokens`;
  const closed = viaServer ? ", and their open connections closed" : " (a running server closes their connections within 10 s)";
  return { result, text: `Removed ${result.person.name}: their sign-in links, browser sessions and ${tokens} are refused from now on${closed}.` };
}

async function rename(name: string, displayName: string, ctx: UserCommandContext): Promise<Outcome<PersonRenamed>> {
  const { result, viaServer } = await either(
    ctx,
    (client) => client.renamePerson(name, { displayName }),
    (people) => people.rename(name, displayName),
  );
  const who = result.name === LOCAL_OWNER ? `The administrator (${LOCAL_OWNER})` : result.name;
  const shown = viaServer ? ": open tabs show it now" : " (open tabs show it when they next load)";
  return { result, text: `${who} is shown as ${result.displayName} everywhere${shown}.` };
}

async function link(name: string, ctx: UserCommandContext): Promise<Outcome<NewSignInLinkResult>> {
  const { result, viaServer } = await either(
    ctx,
    (client) => client.newSignInLink(name),
    async (people) => {
      const made = await people.newLink(name);
      return { name: made.name, signInLink: signInLinkUrl(ctx.origin, made.link), expiresAt: made.expiresAt };
    },
  );
  return { result, text: `A new sign-in link for ${result.name} (their unused ones no longer work):\n\n${linkText(result.signInLink, result.expiresAt)}${viaServer ? "" : offlineNote(ctx.origin)}` };
}

/** `--slack U…`: their clicks in Slack answer as them; `--slack off` unlinks. */
async function linkSlack(name: string, slack: string, ctx: UserCommandContext): Promise<Outcome<SlackLinked>> {
  const wanted = slack === "off" ? null : SlackUserIdSchema.safeParse(slack);
  if (wanted && !wanted.success) throw ctx.usage(wanted.error.issues[0]!.message);
  const slackUserId = wanted ? wanted.data : null;
  const { result } = await either(
    ctx,
    (client) => client.linkSlack(name, { slackUserId }),
    async (people) => {
      const person = await people.idOf(name);
      await ctx.inDatabase((db) => linkInDatabase(db, person, slackUserId));
      return { person, slackUserId };
    },
  );
  const text = result.slackUserId ? `${result.person}'s clicks in Slack (${result.slackUserId}) answer as them now.` : `${result.person} is no longer linked to a Slack user.`;
  return { result, text };
}

async function linkInDatabase(db: Db, person: string, slackUserId: string | null): Promise<void> {
  const store = createSlackStore(db.exec);
  if (slackUserId === null) return store.unlink(person);
  if (!(await store.link(person, slackUserId))) throw new AppError("slack_user_taken", `The Slack user ${slackUserId} is linked to another person already: unlink them first.`);
}

/** `--email ADDRESS|off`, `--email-questions on|off`: a person's address and whether questions they may answer are mailed to them. */
async function setEmail(name: string, email: string | undefined, questions: string | undefined, ctx: UserCommandContext): Promise<Outcome<PersonEmail>> {
  if (questions !== undefined && questions !== "on" && questions !== "off") throw ctx.usage("--email-questions is on or off");
  const address = email === undefined || email === "off" ? email : EmailAddressSchema.safeParse(email);
  if (typeof address === "object" && !address.success) throw ctx.usage(`--email: ${address.error.issues[0]!.message}`);
  const body = { email: address === undefined ? undefined : address === "off" ? null : address.data, questions: questions === undefined ? undefined : questions === "on" };
  const { result } = await either(
    ctx,
    (client) => client.setEmail(name, body),
    async (people) => {
      const person = await people.idOf(name);
      return ctx.inDatabase((db) => createPersonEmails(db).set(person, body.email, body.questions));
    },
  );
  const text =
    result.email === null
      ? `${result.person} has no email address now: no questions are mailed to them.`
      : `${result.person}'s email is ${result.email}; questions they may answer are ${result.questions ? "" : "not "}mailed to them.`;
  return { result, text };
}
