"use client";

import { useEffect, useState } from "react";
import type { WhoAmI } from "../protocol/access";
import { requestJson } from "./api";
import { createWhoAmI } from "./who-am-i";

/** Asked once per page load, shared by every hook that needs it. */
export const whoAmI = createWhoAmI(requestJson);

/** Who this tab is signed in as (null until the server said). */
export function useWhoAmI(): WhoAmI | null {
  const [who, setWho] = useState<WhoAmI | null>(whoAmI.known);
  useEffect(() => {
    let live = true;
    void whoAmI.ask().then((answer) => live && answer && setWho(answer));
    return () => {
      live = false;
    };
  }, []);
  return who;
}
