import { headers } from "next/headers";
import { PRINCIPAL_HEADERS } from "@/lib/server/http/principal-headers";
import { ChatScreen } from "./chat-screen";

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Who the gate signed in (it strips a client's own principal headers): their answers read "by you".
  const viewer = (await headers()).get(PRINCIPAL_HEADERS.owner);
  // Keyed by id: switching chats starts a fresh view instead of mixing two sessions' state.
  return <ChatScreen key={id} sessionId={id} viewer={viewer} />;
}
