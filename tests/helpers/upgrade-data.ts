import type { RawColumn, RawDb, RawRow } from "./raw-db";

/** Every row of every table (but Prisma's book), as one database held them. */
export type Dataset = Record<string, RawRow[]>;

export async function readDataset(db: RawDb): Promise<Dataset> {
  const data: Dataset = {};
  for (const table of await db.tables()) data[table] = await db.rows(table);
  return data;
}

/** A row's primary key, as one string. */
export const rowKey = (columns: readonly RawColumn[], row: RawRow) => JSON.stringify(columns.filter((c) => c.primaryKey).map((c) => row[c.name]));

/** A value of a column's type for a row the dataset has no value for. */
function filler(column: RawColumn, table: string, n: number): unknown {
  const type = column.type;
  if (/bool/.test(type)) return false;
  if (/int|serial/.test(type)) return n;
  if (/real|double|float|numeric|decimal/.test(type)) return n + 0.5;
  if (/date|time/.test(type)) return new Date(Date.UTC(2026, 10, 30, 12, 0, n)).toISOString();
  if (/json/.test(type)) return "{}";
  if (/blob|bytea/.test(type)) return Buffer.from(`${table}.${column.name}.${n}`);
  return `${table}.${column.name}.${n}`;
}

/** Tables ordered so that every table comes after the tables its foreign keys point to. */
async function parentsFirst(db: RawDb, tables: readonly string[]): Promise<string[]> {
  const deps = new Map<string, Set<string>>();
  for (const table of tables) deps.set(table, new Set((await db.foreignKeys(table)).map((k) => k.parentTable).filter((p) => p !== table)));
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return;
    path.add(table);
    for (const parent of deps.get(table) ?? []) if (deps.has(parent)) visit(parent, path);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

/**
 * Fills a database made by an earlier schema with the dataset that the current server wrote:
 * each row keeps the columns that schema has, and a column it requires that the dataset lacks
 * gets a value of its type. A table the dataset has no row for (one a later migration dropped,
 * or one the scenario does not reach) gets two rows made up from its columns, their foreign keys
 * pointing at rows already there: every table holds rows, whatever migrations are added later.
 */
export async function fillDatabase(db: RawDb, dataset: Dataset): Promise<void> {
  const tables = await parentsFirst(db, await db.tables());
  for (const table of tables) {
    const columns = await db.columns(table);
    const keys = await db.foreignKeys(table);
    const given = dataset[table] ?? [];
    const rows = given.length > 0 ? given : [{}, {}];
    for (const [i, source] of rows.entries()) {
      const row: RawRow = {};
      for (const column of columns) {
        if (column.name in source) row[column.name] = source[column.name];
        else if (given.length === 0 || (column.notNull && !column.hasDefault)) {
          const key = keys.find((k) => k.column === column.name);
          row[column.name] = key ? await parentValue(db, key.parentTable, key.parentColumn) : column.notNull || given.length === 0 ? filler(column, table, i) : null;
        }
      }
      await db.insert(table, row);
    }
  }
}

async function parentValue(db: RawDb, table: string, column: string): Promise<unknown> {
  const [row] = await db.rows(table);
  if (!row) throw new Error(`no row in ${table} for a foreign key to point at`);
  return row[column];
}

/** Every row of `before` still in `after` (by primary key), with the same value in each column it had. */
export async function rowsKept(before: Dataset, after: RawDb, { values }: { values: boolean }): Promise<string[]> {
  const problems: string[] = [];
  const tables = new Set(await after.tables());
  for (const [table, rows] of Object.entries(before)) {
    if (rows.length === 0) continue;
    if (!tables.has(table)) {
      problems.push(`${table}: the table is gone with its ${rows.length} row(s)`);
      continue;
    }
    const columns = await after.columns(table);
    const now = new Map((await after.rows(table)).map((row) => [rowKey(columns, row), row]));
    for (const row of rows) {
      const kept = now.get(rowKey(columns, row));
      if (!kept) {
        problems.push(`${table} ${rowKey(columns, row)}: lost`);
        continue;
      }
      if (!values) continue;
      for (const [column, value] of Object.entries(row)) {
        if (column in kept && JSON.stringify(kept[column]) !== JSON.stringify(value))
          problems.push(`${table} ${rowKey(columns, row)}.${column}: ${JSON.stringify(value)} → ${JSON.stringify(kept[column])}`);
        else if (!(column in kept)) problems.push(`${table}.${column}: the column is gone`);
      }
    }
  }
  return problems;
}
