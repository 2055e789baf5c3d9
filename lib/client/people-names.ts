import { defaultDisplayName, nameOfFrom, PeopleNamesSchema, PersonRenamedSchema, type NameOf, type PersonRenamed } from "../protocol/display-names";
import type { RequestJson } from "./api";

/** The part of a socket the names listen to (a Socket.IO client socket). */
export interface NamesSocket {
  connected: boolean;
  on(event: string, handler: (...args: unknown[]) => void): unknown;
}

export const NAMES_PATH = "/api/names";

/**
 * Everyone's display name, for every place a tab names a person (the header, People, the chat
 * list, run lines, the record of a closed card). Read once per page load and again after each
 * reconnect (a rename said while disconnected was missed); a `person.renamed` event changes one
 * name at once. `nameOf` is a new function after each change, so what was drawn with it redraws.
 */
export function createPeopleNames(request: RequestJson) {
  let names: Record<string, string> = {};
  let nameOf: NameOf = defaultDisplayName;
  let asked: Promise<void> | null = null;
  const listeners = new Set<() => void>();
  const sockets = new WeakSet<object>();

  const set = (next: Record<string, string>) => {
    names = next;
    nameOf = nameOfFrom(names);
    listeners.forEach((l) => l());
  };

  const renamed = ({ name, displayName }: PersonRenamed) => {
    if (names[name] !== displayName) set({ ...names, [name]: displayName });
  };

  function load(): Promise<void> {
    asked ??= request<unknown>(NAMES_PATH).then((res) => {
      const parsed = res.ok ? PeopleNamesSchema.safeParse(res.data) : null;
      // Asked again next time (the server was away).
      if (!parsed?.success) asked = null;
      else set(parsed.data.names);
    });
    return asked;
  }

  return {
    /** How this tab names a person now. */
    nameOf: (): NameOf => nameOf,
    load,
    /** A rename this tab made (its answer) or heard of. */
    renamed,
    /** Listens to a socket's renames, and reads every name again when it connects again. */
    listenTo(socket: NamesSocket): void {
      if (sockets.has(socket)) return;
      sockets.add(socket);
      socket.on("person.renamed", (payload: unknown) => {
        const parsed = PersonRenamedSchema.safeParse(payload);
        if (parsed.success) renamed(parsed.data);
      });
      // Its first connect, still to come, is no reconnect: the page's own load reads the names.
      let connectedBefore = socket.connected;
      socket.on("connect", () => {
        if (connectedBefore) {
          asked = null;
          void load();
        }
        connectedBefore = true;
      });
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type PeopleNamesStore = ReturnType<typeof createPeopleNames>;
