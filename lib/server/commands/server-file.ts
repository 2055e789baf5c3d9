import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { ServerAnnouncementSchema, type ServerAnnouncement } from "../../protocol/rest";
import { sqliteFilePath } from "../db/migrate";

/** Where a server that owns this database announces itself: beside the SQLite file. */
export function serverFilePath(databaseUrl: string): string | null {
  const file = sqliteFilePath(databaseUrl);
  return file === ":memory:" ? null : `${file}.server.json`;
}

/** The URL a local client reaches a server on, for the address it listens on. */
export function localUrl(host: string, port: number): string {
  const loopback = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  return `http://${loopback}:${port}`;
}

/** Announces a listening server (written whole, then renamed, so a reader never sees half a file). */
export function announceServer(databaseUrl: string, url: string, token?: string): void {
  const file = serverFilePath(databaseUrl);
  if (!file) return;
  const announcement: ServerAnnouncement = { url, pid: process.pid, startedAt: new Date().toISOString(), token };
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(announcement, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Withdraws this process's announcement (never another server's that replaced it). */
export function withdrawServer(databaseUrl: string): void {
  const file = serverFilePath(databaseUrl);
  if (file && readAnnouncement(databaseUrl)?.pid === process.pid) rmSync(file, { force: true });
}

/** The announcement beside the database, if there is a readable one; it may be stale (see the CLI's check). */
export function readAnnouncement(databaseUrl: string): ServerAnnouncement | null {
  const file = serverFilePath(databaseUrl);
  if (!file) return null;
  try {
    const parsed = ServerAnnouncementSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
