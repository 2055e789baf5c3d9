import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * The server's open TCP connections, so a shutdown can end them: `server.close()` waits for every
 * keep-alive connection and upgraded socket (a browser's Socket.IO or Next's hot-reload WebSocket),
 * which a tab keeps open as long as it lives.
 */
export function trackConnections(server: Server) {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  return {
    /** Ends idle keep-alive connections now; the rest get `graceMs` to finish their response, then are destroyed. */
    endAll(graceMs: number): Promise<void> {
      server.closeIdleConnections();
      for (const socket of open) socket.end();
      if (open.size === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          for (const socket of open) socket.destroy();
          resolve();
        }, graceMs);
        timer.unref();
        const check = () => {
          if (open.size > 0) return;
          clearTimeout(timer);
          resolve();
        };
        for (const socket of open) socket.once("close", check);
      });
    },
  };
}
