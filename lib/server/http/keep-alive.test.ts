import { createServer, request, Agent, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { keepConnectionsAlive } from "./keep-alive";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? (server.close(() => resolve()), server.closeAllConnections()) : resolve())));

it("keeps an idle keep-alive connection open past the 6 s after which Node closes it (5 s and a second), so a client reusing it is not reset", async () => {
  server = createServer((_req, res) => res.end("ok"));
  keepConnectionsAlive(server);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<Socket>((resolve, reject) => {
      const req = request({ port, host: "127.0.0.1", agent }, (res) => {
        res.resume();
        res.once("end", () => resolve(req.socket as Socket));
      });
      req.once("error", reject);
      req.end();
    });
  const socket = await get();
  let closed = false;
  socket.once("close", () => (closed = true));
  await new Promise((resolve) => setTimeout(resolve, 6_500));
  expect(closed).toBe(false);
  expect(await get()).toBe(socket);
  agent.destroy();
}, 10_000);
