import { connection } from "next/server";
import { requestPrincipal } from "@/lib/server/http/request-principal";
import { ChatScreen } from "./chat-screen";

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Rendered for each request: who it shows the chat to is that request's.
  await connection();
  // Who the gate signed in: their answers read "by you".
  const viewer = requestPrincipal()?.ownerId ?? null;
  // Keyed by id: switching chats starts a fresh view instead of mixing two sessions' state.
  return <ChatScreen key={id} sessionId={id} viewer={viewer} />;
}
