import Database from "better-sqlite3";
import pg from "pg";

/** A column as the engine describes it. */
export interface RawColumn {
  name: string;
  /** The declared type, lower case (`text`, `datetime`, `timestamp without time zone` …). */
  type: string;
  notNull: boolean;
  hasDefault: boolean;
  primaryKey: boolean;
}

export interface RawForeignKey {
  column: string;
  parentTable: string;
  parentColumn: string;
}

export type RawRow = Record<string, unknown>;

/**
 * A database read and written below Prisma, table by table, as any earlier schema left it: what
 * the upgrade tests use to fill and compare tables they know nothing about. Values go back in
 * exactly as they came out (timestamps as the engine's text).
 */
export interface RawDb {
  tables(): Promise<string[]>;
  columns(table: string): Promise<RawColumn[]>;
  foreignKeys(table: string): Promise<RawForeignKey[]>;
  rows(table: string): Promise<RawRow[]>;
  insert(table: string, row: RawRow): Promise<void>;
  close(): Promise<void>;
}

const BOOK = "_prisma_migrations";

export function openRawSqlite(file: string): RawDb {
  const db = new Database(file);
  return {
    tables: async () => (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ? ORDER BY name`).all(BOOK) as { name: string }[]).map((r) => r.name),
    columns: async (table) =>
      (db.pragma(`table_info("${table}")`) as Array<{ name: string; type: string; notnull: number; dflt_value: unknown; pk: number }>).map((c) => ({
        name: c.name,
        type: c.type.toLowerCase(),
        notNull: c.notnull === 1,
        hasDefault: c.dflt_value !== null,
        primaryKey: c.pk > 0,
      })),
    foreignKeys: async (table) =>
      (db.pragma(`foreign_key_list("${table}")`) as Array<{ table: string; from: string; to: string }>).map((k) => ({ column: k.from, parentTable: k.table, parentColumn: k.to })),
    rows: async (table) => db.prepare(`SELECT * FROM "${table}"`).all() as RawRow[],
    insert: async (table, row) => {
      const names = Object.keys(row);
      db.prepare(`INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`).run(
        ...names.map((n) => (typeof row[n] === "boolean" ? Number(row[n]) : row[n])),
      );
    },
    close: async () => void db.close(),
  };
}

// Timestamps stay the text PostgreSQL gives, so a row goes back exactly as it came out.
const asText = (value: string) => value;
const TEXT_TYPES = new Set([1082, 1083, 1114, 1184]);
const types = { getTypeParser: ((oid: number, format?: "text" | "binary") => (TEXT_TYPES.has(oid) ? asText : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser };

export async function openRawPostgres(url: string): Promise<RawDb> {
  const client = new pg.Client({ connectionString: url, types });
  await client.connect();
  const q = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await client.query<T>(sql, params)).rows;
  return {
    tables: async () =>
      (await q<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> $1 ORDER BY 1`, [BOOK])).map(
        (r) => r.name,
      ),
    columns: async (table) => {
      const pk = new Set(
        (
          await q<{ name: string }>(
            `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = $1::regclass AND i.indisprimary`,
            [`"${table}"`],
          )
        ).map((r) => r.name),
      );
      return (
        await q<{ name: string; type: string; nullable: string; dflt: string | null }>(
          `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
          [table],
        )
      ).map((c) => ({ name: c.name, type: c.type.toLowerCase(), notNull: c.nullable === "NO", hasDefault: c.dflt !== null, primaryKey: pk.has(c.name) }));
    },
    foreignKeys: async (table) =>
      q<RawForeignKey>(
        `SELECT kcu.column_name AS "column", ccu.table_name AS "parentTable", ccu.column_name AS "parentColumn"
           FROM information_schema.table_constraints tc
           JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
           JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
          WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public' AND tc.table_name = $1`,
        [table],
      ),
    rows: async (table) => q<RawRow>(`SELECT * FROM "${table}"`),
    insert: async (table, row) => {
      const names = Object.keys(row);
      await q(
        `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
        names.map((n) => row[n]),
      );
    },
    close: () => client.end(),
  };
}
