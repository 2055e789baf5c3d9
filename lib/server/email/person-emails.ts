import { LOCAL_OWNER } from "../../protocol/access";
import type { PersonEmail } from "../../protocol/email";
import { AppError } from "../../protocol/errors";
import type { Db } from "../store/db/client";
import { createEmailStore } from "../store/email/email-store";

/** People's email addresses, whether or not this server sends mail yet (an address set before SMTP is ready counts from then on). */
export function createPersonEmails(db: Db) {
  const store = createEmailStore(db.exec);
  return {
    /**
     * Sets a person's address (null: none; undefined: keeps it) and whether questions they may
     * answer are mailed to them (on by default); an address another person has is refused.
     */
    async set(person: string, email: string | null | undefined, questions?: boolean): Promise<PersonEmail> {
      if (email === null) {
        await store.removeEmail(person);
        return { person, email: null, questions: false };
      }
      const current = await store.emailOf(person);
      // Stored and compared lower-cased: Ann@Example.com and ann@example.com are one address.
      const address = (email ?? current?.email)?.toLowerCase();
      if (address === undefined) throw new AppError("bad_request", `${person === LOCAL_OWNER ? "The administrator" : person} has no email address yet: give one with --email ADDRESS.`);
      const on = questions ?? current?.questions ?? true;
      if (!(await store.setEmail(person, address, on))) throw new AppError("email_taken", `${address} is another person's address already.`);
      return { person, email: address, questions: on };
    },
    async get(person: string): Promise<PersonEmail> {
      const row = await store.emailOf(person);
      return { person, email: row?.email ?? null, questions: row?.questions ?? false };
    },
  };
}

export type PersonEmails = ReturnType<typeof createPersonEmails>;
