"use client";

import { useCallback, useEffect, useState } from "react";
import type { PersonEmail } from "../protocol/email";
import { requestJson } from "./api";

/** My email address and whether questions I may answer are mailed to me (GET/PUT /api/users/{me}/email). */
export function useMyEmail(me: string | null) {
  const [current, setCurrent] = useState<PersonEmail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = me === null ? null : `/api/users/${encodeURIComponent(me)}/email`;

  useEffect(() => {
    if (path === null) return;
    let live = true;
    void requestJson<PersonEmail>(path).then((res) => {
      if (!live) return;
      if (res.ok) setCurrent(res.data);
      else setError(res.error.message);
    });
    return () => {
      live = false;
    };
  }, [path]);

  /** Saves an address (empty: none) and the choice; resolves with whether it was saved. */
  const save = useCallback(
    async (email: string, questions: boolean): Promise<boolean> => {
      if (path === null) return false;
      setBusy(true);
      const res = await requestJson<PersonEmail>(path, { method: "PUT", body: { email: email.trim() === "" ? null : email.trim(), questions } });
      setBusy(false);
      if (!res.ok) {
        setError(res.error.message);
        return false;
      }
      setError(null);
      setCurrent(res.data);
      return true;
    },
    [path],
  );

  return { current, error, busy, save };
}
