/**
 * The floor of the question loop, run as a tiny child of a benchmark (see floorRelay in
 * bench-kit-tabs.ts): a bare Socket.IO relay whose clients all join one room; on "reply" it claims
 * the question's row in SQLite in one transaction (better-sqlite3, WAL, `synchronous` as the app:
 * PARLEY_DB_SYNC, FULL by default) and, if the claim won, broadcasts the retraction to the others.
 * The least work a durable first-answer-wins can do. Tells its parent its port over IPC.
 */
import Database from "better-sqlite3";
import { createServer } from "node:http";
import { Server } from "socket.io";

const file = process.argv[2];
if (!file || !process.send) throw new Error("bench-kit-floor.ts runs as a forked child: fork(it, [databaseFile])");
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma(`synchronous = ${(process.env.PARLEY_DB_SYNC ?? "FULL").toUpperCase() === "NORMAL" ? "NORMAL" : "FULL"}`);
db.exec("CREATE TABLE question (id TEXT PRIMARY KEY, status TEXT NOT NULL, answer TEXT, answeredAt INTEGER)");
const insert = db.prepare("INSERT INTO question (id, status) VALUES (?, 'pending')");
const claim = db.prepare("UPDATE question SET status = 'answered', answer = ?, answeredAt = ? WHERE id = ? AND status = 'pending'");
const claimTx = db.transaction((id: string, value: unknown) => claim.run(JSON.stringify(value), Date.now(), id).changes === 1);

const http = createServer();
const io = new Server(http, { serveClient: false });
io.on("connection", (socket) => {
  void socket.join("session");
  socket.on("ask", (id: string, ack: (ok: boolean) => void) => {
    insert.run(id);
    ack(true);
  });
  socket.on("reply", ({ id, value }: { id: string; value: unknown }, ack: (r: { ok: boolean }) => void) => {
    const won = claimTx(id, value);
    if (won) socket.to("session").emit("retracted", { id, value });
    ack({ ok: won });
  });
});
http.listen(0, "127.0.0.1", () => process.send!({ port: (http.address() as { port: number }).port }));
process.on("disconnect", () => process.exit(0));
