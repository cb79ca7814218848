/** The shape of `fetch` the SDK's HTTP transports and the OAuth flow take (see guardedFetch.ts, which every request goes through). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;
