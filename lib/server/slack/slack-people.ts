import type { WebClient } from "@slack/web-api";
import { log } from "../log";
import type { EmailStore } from "../store/email/email-store";
import type { SlackStore } from "../store/slack/slack-store";

/** How long a Slack user or an address Slack did not know is not asked about again. */
const UNKNOWN_FOR_MS = 10 * 60 * 1000;

/**
 * Who a Slack user is in Parley, and who a person is in Slack: their link (`parley user link NAME
 * --slack U…`), or, when the app may read people's emails (the `users:read.email` scope), the
 * person whose address their Slack profile has, linked from then on.
 */
export function createSlackPeople({
  client,
  links,
  emails,
}: {
  client: Pick<WebClient, "users">;
  links: Pick<SlackStore, "personOf" | "slackUsersOf" | "link">;
  emails: Pick<EmailStore, "addressesOf" | "personWithEmail">;
}) {
  const unknown = new Map<string, number>();
  const known = (key: string) => (unknown.get(key) ?? 0) < Date.now();
  const forget = (key: string) => void unknown.set(key, Date.now() + UNKNOWN_FOR_MS);
  /** A Web API call the app may not be allowed to make (missing_scope, users_not_found …): none of them is an error here. */
  const quietly = async <T>(what: string, call: () => Promise<T>): Promise<T | null> =>
    call().catch((err: unknown) => {
      log.debug({ err }, `[slack] ${what}`);
      return null;
    });

  return {
    /** The person a Slack user answers as, or null. */
    async personOf(slackUserId: string): Promise<string | null> {
      const linked = await links.personOf(slackUserId);
      if (linked !== null || !known(slackUserId)) return linked;
      const info = await quietly("users.info", () => client.users.info({ user: slackUserId }));
      const email = info?.user?.profile?.email;
      const person = email ? await emails.personWithEmail(email) : null;
      if (person === null || !(await links.link(person, slackUserId))) {
        forget(slackUserId);
        return null;
      }
      log.info({ person, slackUserId }, "[slack] linked a person to their Slack user by their email");
      return person;
    },

    /** The Slack users of these people: their links, else those Slack finds by their address (linked from then on). */
    async slackUsersOf(people: string[]): Promise<Map<string, string>> {
      const linked = await links.slackUsersOf(people);
      const missing = people.filter((p) => !linked.has(p) && known(`person:${p}`));
      if (missing.length === 0) return linked;
      for (const [person, email] of await emails.addressesOf(missing)) {
        const found = await quietly("users.lookupByEmail", () => client.users.lookupByEmail({ email }));
        const id = found?.user?.id;
        if (id && (await links.link(person, id))) linked.set(person, id);
        else forget(`person:${person}`);
      }
      return linked;
    },
  };
}

export type SlackPeople = ReturnType<typeof createSlackPeople>;
