import { useEffect, useState } from "react";
import { LOCAL_OWNER, type WhoAmI } from "../protocol/access";
import { requestJson, type RequestJson } from "./api";

/** The person a client is signed in as (`local` is the administrator the server token speaks for). */
export interface Me {
  name: string;
  admin: boolean;
}

/** Asked once per requester (a browser page, a terminal's server), again after a failure. */
const asked = new WeakMap<RequestJson, Promise<Me | null>>();

function askWhoIAm(request: RequestJson): Promise<Me | null> {
  let answer = asked.get(request);
  if (!answer) {
    answer = request<WhoAmI & { admin?: boolean }>("/api/auth/session").then((res) => {
      if (res.ok) return { name: res.data.ownerId, admin: res.data.ownerId === LOCAL_OWNER || res.data.admin === true };
      asked.delete(request);
      return null;
    });
    asked.set(request, answer);
  }
  return answer;
}

/** Who is signed in (GET /api/auth/session, asked once); null until the server has said. */
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
