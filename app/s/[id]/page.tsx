import { ChatScreen } from "./chat-screen";

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Keyed by id: switching chats starts a fresh view instead of mixing two sessions' state.
  return <ChatScreen key={id} sessionId={id} />;
}
