// Holds SQLite's write lock on a database from another process, as the CLI or any other tool can:
// node hold-write-lock.mjs FILE MS. Prints "locked AT" once it holds the lock, and "released AT"
// once it let go after MS, each AT its own Date.now() (taken after BEGIN, and before ROLLBACK: a
// write of another process that waited for the lock can only have been made after that "released").
import Database from "better-sqlite3";

const [file, ms] = process.argv.slice(2);
const db = new Database(file, { timeout: 10_000 });
db.exec("BEGIN IMMEDIATE");
process.stdout.write(`locked ${Date.now()}\n`);
setTimeout(() => {
  const at = Date.now();
  db.exec("ROLLBACK");
  db.close();
  process.stdout.write(`released ${at}\n`);
}, Number(ms));
