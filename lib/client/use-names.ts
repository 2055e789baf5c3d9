"use client";

import { useEffect, useSyncExternalStore } from "react";
import { defaultDisplayName, type NameOf, type PersonRenamed } from "../protocol/display-names";
import type { Ack } from "../protocol/socket";
import { requestJson } from "./api";
import { createPeopleNames } from "./people-names";
import { getSocket } from "./socket";

/** Read once per page load, shared by everything that names a person. */
export const peopleNames = createPeopleNames(requestJson);

/** How this tab names a person: their display name, redrawn when anyone is renamed (in any tab). */
export function useNameOf(): NameOf {
  const nameOf = useSyncExternalStore(peopleNames.subscribe, peopleNames.nameOf, () => defaultDisplayName);
  useEffect(() => {
    peopleNames.listenTo(getSocket());
    void peopleNames.load();
  }, []);
  return nameOf;
}

/** Renames a person (PATCH /api/users/{name}); this tab shows the new name at once, the others when the server tells them. */
export async function renamePerson(user: string, displayName: string): Promise<Ack<PersonRenamed>> {
  const res = await requestJson<PersonRenamed>(`/api/users/${encodeURIComponent(user)}`, { method: "PATCH", body: { displayName } });
  if (res.ok) peopleNames.renamed(res.data);
  return res;
}
