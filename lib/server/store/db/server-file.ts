import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ServerAnnouncementSchema, type ServerAnnouncement } from "../../../protocol/rest";
import { engineOf } from "./engine";
import { sqliteFilePath } from "./engine";
import { makePrivateFolder } from "./private-files";

/**
 * A file of the server that owns this database (`suffix` names which): beside the SQLite file;
 * for a PostgreSQL database, in ./data under a name keyed by a hash of the database's address
 * (user, host, port, database: not the password, nor the query). None for an in-memory database.
 */
function besideDatabase(databaseUrl: string, suffix: string): string | null {
  if (engineOf(databaseUrl) === "postgresql") {
    const key = createHash("sha256").update(postgresIdentity(databaseUrl)).digest("hex").slice(0, 16);
    return path.resolve("data", `postgresql-${key}${suffix}`);
  }
  const file = sqliteFilePath(databaseUrl);
  return file === ":memory:" ? null : `${file}${suffix}`;
}

/** Where a server that owns this database announces itself. */
export const serverFilePath = (databaseUrl: string) => besideDatabase(databaseUrl, ".server.json");

/** Where a server started without PARLEY_TOKEN keeps the token it made (see keptServerToken). */
export const tokenFilePath = (databaseUrl: string) => besideDatabase(databaseUrl, ".token");

function postgresIdentity(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `postgresql://${decodeURIComponent(url.username)}@${url.hostname.toLowerCase()}:${url.port || "5432"}${url.pathname}`;
}

/** The database as told to a person: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(databaseUrl: string): string {
  if (engineOf(databaseUrl) === "sqlite") return sqliteFilePath(databaseUrl);
  const url = new URL(databaseUrl);
  if (url.password) url.password = "***";
  return url.toString();
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
  makePrivateFolder(path.dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(announcement, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Withdraws the announcement of process `pid`, this one unless a killed server's (never another server's that replaced it). */
export function withdrawServer(databaseUrl: string, pid = process.pid): void {
  const file = serverFilePath(databaseUrl);
  if (file && readAnnouncement(databaseUrl)?.pid === pid) rmSync(file, { force: true });
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
