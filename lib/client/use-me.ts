import { useEffect, useState } from "react";
import { whoAmI } from "./use-who-am-i";
import { meOf, type Me } from "./session-people";

/** The person this browser is signed in as, and whether they are an administrator; null until the server has said. */
export function useMe(): Me | null {
  const [me, setMe] = useState<Me | null>(whoAmI.known && meOf(whoAmI.known));
  useEffect(() => {
    let active = true;
    void whoAmI.ask().then((found) => active && found && setMe(meOf(found)));
    return () => {
      active = false;
    };
  }, []);
  return me;
}
