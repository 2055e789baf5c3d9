/**
 * A lean Socket.IO client for benchmarks that hold thousands of tabs: a bare WebSocket speaking the
 * Engine.IO 4 / Socket.IO 5 protocol (connect with auth, answer pings, emit with an ack, hear
 * events). Unlike socket.io-client it parses nothing it is not asked to: an event is recognised by
 * its name and handed over as the packet's text, for the listener to read as little of as it needs,
 * so the measuring side spends little on what it does not measure.
 */
import WebSocket from "ws";

export interface LeanTab {
  /** Calls `listener` with the text of every `event`'s packet (`42["event",payload]`, not parsed). */
  on(event: string, listener: (packet: string) => void): void;
  emitWithAck(event: string, payload: unknown): Promise<unknown>;
  onClose(listener: (reason: string) => void): void;
  /** Calls `listener` on every Socket.IO packet that arrives (events not listened to included; not pings). */
  onFrame(listener: () => void): void;
  close(): void;
}

/** The payload of an event's packet text, parsed. */
export const payloadOf = (packet: string): unknown => (JSON.parse(packet.slice(2)) as [string, unknown])[1];

/** The first `"id":"…"` of an event's packet text: the id of a payload whose first field is its id, without parsing it. */
export const firstId = (packet: string): string | undefined => /"id":"([^"]+)"/.exec(packet)?.[1];

/** Connects to the Socket.IO server at `url` (http://host:port), authenticating with `auth` (Socket.IO's handshake auth). */
export function openLeanTab(url: string, auth: Record<string, string> = {}, path = "/socket.io"): Promise<LeanTab> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}${path}/?EIO=4&transport=websocket`, { perMessageDeflate: false });
  const listeners = new Map<string, (packet: string) => void>();
  const acks = new Map<number, (response: unknown) => void>();
  const closers: ((reason: string) => void)[] = [];
  let onFrame = () => {};
  let nextAck = 0;
  const tab: LeanTab = {
    on: (event, listener) => void listeners.set(event, listener),
    emitWithAck(event, payload) {
      const id = nextAck++;
      return new Promise((resolve) => {
        acks.set(id, resolve);
        ws.send(`42${id}${JSON.stringify([event, payload])}`);
      });
    },
    onClose: (listener) => void closers.push(listener),
    onFrame: (listener) => void (onFrame = listener),
    close: () => ws.close(),
  };
  return new Promise((resolve, reject) => {
    let connected = false;
    ws.on("error", (err) => (connected ? undefined : reject(err)));
    ws.on("close", (code) => {
      if (!connected) reject(new Error(`closed before connecting (${code})`));
      for (const c of closers) c(`closed (${code})`);
    });
    ws.on("message", (data: Buffer) => {
      const text = data.toString();
      const type = text[0];
      if (type === "2") return ws.send("3");
      if (type === "0") return ws.send(`40${JSON.stringify(auth)}`);
      if (type !== "4") return;
      onFrame();
      const kind = text[1];
      if (kind === "2") {
        // 42["event",payload]
        listeners.get(text.slice(4, text.indexOf('"', 4)))?.(text);
      } else if (kind === "3") {
        const bracket = text.indexOf("[");
        const id = Number(text.slice(2, bracket));
        acks.get(id)?.((JSON.parse(text.slice(bracket)) as unknown[])[0]);
        acks.delete(id);
      } else if (kind === "0") {
        connected = true;
        resolve(tab);
      } else if (kind === "4") {
        reject(new Error(`connection refused: ${text.slice(2)}`));
        ws.close();
      }
    });
  });
}
