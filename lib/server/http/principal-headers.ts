/** Headers the gate sets for route handlers after checking the credential (it strips any a client sends). */
export const PRINCIPAL_HEADERS = { owner: "x-parley-owner", via: "x-parley-via", credential: "x-parley-credential", scope: "x-parley-scope", admin: "x-parley-admin" } as const;
