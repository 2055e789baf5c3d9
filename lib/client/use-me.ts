import { useEffect, useState } from "react";
import type { WhoAmI } from "../protocol/access";
import { requestJson, type RequestJson } from "./api";
import { meOf, type Me } from "./session-people";

/** Asked once per server (a browser page's own: a sign-in loads a new page; a terminal's); asked again after a failure. */
const asked = new WeakMap<RequestJson, Promise<Me | null>>();

function askWhoIAm(request: RequestJson): Promise<Me | null> {
  let answer = asked.get(request);
  if (!answer) {
    answer = request<WhoAmI>("/api/auth/session").then((res) => {
      if (res.ok) return meOf(res.data);
      asked.delete(request);
      return null;
    });
    asked.set(request, answer);
  }
  return answer;
}

/** The person this browser (or the terminal client, through its requester) is signed in as; null until the server has said. */
export function useMe(request: RequestJson = requestJson): Me | null {
  const [me, setMe] = useState<Me | null>(null);
  useEffect(() => {
    let active = true;
    void askWhoIAm(request).then((found) => active && setMe(found));
    return () => {
      active = false;
    };
  }, [request]);
  return me;
}
