import { render } from "ink";
import type { WhoAmI } from "../protocol/access";
import { AppError } from "../protocol/errors";
import type { Session } from "../protocol/entities";
import type { Ack } from "../protocol/socket";
import { createRequester, type RequestJson, type RequestOptions } from "../client/api";
import { connectSocket } from "../client/socket";
import type { SessionTransport } from "../client/transport";
import { createTokenHolder, type FoundServer } from "../cli/server-client";
import { ChatApp } from "./ChatApp";
import { pickSession } from "./pick-session";

export interface ChatOptions {
  server: FoundServer;
  /** An id, a prefix of one or a title; absent: a new chat (or the newest with `latest`). */
  session: string | undefined;
  latest: boolean;
}

/** `parley chat`: opens a session in this terminal until Ctrl+C; resolves with the exit code. */
export async function chat({ server, session: arg, latest }: ChatOptions): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new AppError("bad_request", "parley chat needs a terminal: run it in a terminal, not with its input or output redirected.");
  const token = createTokenHolder(server);
  const refused = `The server at ${server.url} refused the token. Pass --token or set PARLEY_TOKEN (the server token, or one from \`parley token create\`).`;
  const once = createRequester({
    baseUrl: server.url,
    headers: (): Record<string, string> => (token.current ? { authorization: `Bearer ${token.current}` } : {}),
    onUnauthorized: () => {},
  });
  // Refused after a rotation: the same request again with the token the server announces now.
  const request: RequestJson = <T,>(path: string, init?: RequestOptions) =>
    token.renewing(
      () => once<T>(path, init),
      (ack) => !ack.ok && ack.error.code === "unauthorized",
    );
  const unwrap = <T,>(ack: Ack<T>): T => {
    if (!ack.ok) throw new AppError(ack.error.code, ack.error.code === "unauthorized" ? refused : ack.error.message);
    return ack.data;
  };

  const sessions = unwrap(await request<Session[]>("/api/sessions"));
  const me = unwrap(await request<WhoAmI>("/api/auth/session"));
  const choice = pickSession(sessions, { arg, latest });
  const session = choice.type === "existing" ? choice.session : unwrap(await request<Session>("/api/sessions", { method: "POST", body: {} }));

  // Set by the callbacks below: the cast keeps TypeScript from taking it for null ever after.
  let fatal = null as string | null;
  const socketAuth = (): Record<string, string> => ({ ...(token.current ? { token: token.current } : {}), surface: "terminal" });
  const socket = connectSocket({
    url: server.url,
    auth: socketAuth(),
    onUnauthorized: () => {
      if (token.renew()) {
        socket.auth = socketAuth();
        socket.connect();
        return;
      }
      fatal = refused;
      app.unmount();
    },
  });
  const transport: SessionTransport = { socket, request, surface: "terminal" };
  const app = render(
    <ChatApp
      sessionId={session.id}
      transport={transport}
      browserUrl={new URL(`/s/${session.id}`, server.url).href}
      viewer={me.ownerId}
      onFatal={(message) => {
        fatal = message;
      }}
    />,
    { exitOnCtrlC: true },
  );
  await app.waitUntilExit();
  socket.close();
  if (fatal) {
    process.stderr.write(`${fatal}\n`);
    return 1;
  }
  return 0;
}
