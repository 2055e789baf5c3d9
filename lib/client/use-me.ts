import { useEffect, useState } from "react";
import type { WhoAmI } from "../protocol/access";
import { requestJson } from "./api";
import { meOf, type Me } from "./session-people";

/** Asked once per page (a sign-in loads a new page); asked again after a failure. */
let asked: Promise<Me | null> | null = null;

function askWhoIAm(): Promise<Me | null> {
  asked ??= requestJson<WhoAmI>("/api/auth/session").then((res) => {
    if (res.ok) return meOf(res.data);
    asked = null;
    return null;
  });
  return asked;
}

/** The person this browser is signed in as; null until the server has said. */
export function useMe(): Me | null {
  const [me, setMe] = useState<Me | null>(null);
  useEffect(() => {
    let active = true;
    void askWhoIAm().then((found) => active && setMe(found));
    return () => {
      active = false;
    };
  }, []);
  return me;
}
