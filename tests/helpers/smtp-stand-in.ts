import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A mail the stand-in took: who it went to, and the message as parsed (text, HTML, headers). */
export interface ReceivedMail {
  to: string[];
  user: string | undefined;
  mail: ParsedMail;
}

/**
 * A local SMTP server (the `smtp-server` package) that takes every mail with any password for
 * `user`, as a mail provider's submission port does (without TLS: the test runs on loopback), and
 * keeps it parsed. `refuseNext(n)` answers the next n mails 451 (try again later).
 */
export async function startSmtpStandIn(user = "parley") {
  const received: ReceivedMail[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username !== user) return callback(new Error("Invalid username or password"));
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      if (refusals > 0) {
        refusals--;
        stream.resume();
        return stream.on("end", () => callback(Object.assign(new Error("Try again later"), { responseCode: 451 })));
      }
      simpleParser(stream).then(
        (mail) => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), user: session.user as string | undefined, mail });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${user}:secret@127.0.0.1:${port}`,
    received,
    refuseNext: (n: number) => void (refusals = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type SmtpStandIn = Awaited<ReturnType<typeof startSmtpStandIn>>;
