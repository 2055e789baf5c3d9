/** What `parley --help` says: here alone, so that printing it loads no command's modules. */
import { LOCAL_OWNER } from "../protocol/access";

export const BACKUP_USAGE = `  backup [FILE]                     a consistent copy of the SQLite database, also while the server
                                    runs (default: data/backups/<name>-<timestamp>.db)
  restore FILE                      put a backup in the database's place (refused while a server uses
                                    it; the database it replaces is backed up first)`;

export const ROTATE_USAGE = `  token rotate                      a new server token (kept beside the database, mode 0600): a running
                                    server refuses the old one at once and signs browsers out; the
                                    terminal client and the CLI take the new one by themselves`;

export const RUN_USAGE = `  run FUNCTION [--session ID] [--input JSON] [--wait]
                                    start a run of an agent function through the running server (a new
                                    chat without --session); --wait follows it until it ends or asks`;

export const SIGN_OUT_USAGE = `  sign-out-everywhere               sign every browser out: session cookies issued before now are
                                    refused (through the running server, else in the database)`;

export const TOKEN_USAGE = `  token create [--name N] [--user NAME] [--scope full|ask]
                                    create an API token for scripts, channels and the terminal client
                                    (shown once); it acts as the person --user names (one added with
                                    user add; --owner is the older spelling), by default the
                                    administrator "${LOCAL_OWNER}"; --scope ask: it may only ask (the ask
                                    API, MCP) and read its own asks
  token list                        list API tokens
  token revoke TOKEN_ID             revoke an API token (through a running server: its connections close at once)`;

export const ASK_USAGE = `  ask QUESTION [--options A,B] [--multi] [--default A] [--timeout 10m]
      [--session ID | --new TITLE] [--from NAME] [--answerers A,B]
      [--escalate-after 10m --escalate-to C,D]
                                    ask the person through the running server and wait: prints the
                                    answer; exits 0 answered, 2 declined, 3 timed out or withdrawn
                                    (Ctrl-C withdraws it), 1 on an error; --answerers: only they may
                                    answer; --escalate-*: after that long, those may answer too`;

export const AUDIT_USAGE = `  audit [--session ID_OR_TITLE] [--after CURSOR] [--limit N]
                                    settled questions, oldest first: who answered each and from where,
                                    or which rule decided, with the votes; --after an ISO time or the
                                    cursor a page ends with (reads the database; every session)`;

export const WEBHOOK_SECRET_USAGE = `  webhook-secret                    the secret asks' callbacks are signed with (Standard Webhooks):
                                    PARLEY_WEBHOOK_SECRET, else the one kept in the database (made
                                    on first use; no server needed)`;

export const USER_USAGE = `  user add NAME [--admin] [--email ADDRESS]
                                    add a person: prints their one-time sign-in link (good for a day);
                                    --admin: they may manage people too; --email: questions they may
                                    answer are mailed to them (docs/email.md)
  user list                         list the people (the administrator "${LOCAL_OWNER}" is the server token)
  user remove NAME                  remove a person: their links, browser sessions and API tokens are
                                    refused, and their open connections closed
  user link NAME                    a new sign-in link for a person (their unused ones stop working)
  user link NAME --slack U…|off     their clicks in Slack answer as them (their Slack member ID;
                                    off: unlinks); docs/slack.md
  user rename NAME NEW              the name a person is shown by everywhere (NAME: their name or
                                    the one they are shown by; ${LOCAL_OWNER} is the administrator)
  user set NAME [--email ADDRESS|off] [--email-questions on|off]
                                    a person's email address, and whether questions they may answer
                                    are mailed to them`;
