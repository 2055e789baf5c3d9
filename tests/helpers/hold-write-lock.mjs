// Holds SQLite's write lock on a database from another process, as the CLI or any other tool can:
// node hold-write-lock.mjs FILE MS. Prints "locked" once it holds the lock, exits after MS.
import Database from "better-sqlite3";

const [file, ms] = process.argv.slice(2);
const db = new Database(file, { timeout: 10_000 });
db.exec("BEGIN IMMEDIATE");
process.stdout.write("locked\n");
setTimeout(() => {
  db.exec("ROLLBACK");
  db.close();
  process.stdout.write("released\n");
}, Number(ms));
