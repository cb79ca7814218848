/**
 * The gateway's resource URIs (split out of server.ts, issue 39): a server's resource or resource template is offered
 * to VS Code under `mcp-host-gateway://<server>/<original URI, encoded>`, unique across servers, and a URI VS Code
 * sends back is decoded to the server and its own URI. Pure functions, no state; the gateway server (server.ts) lists
 * and reads through them.
 */
/** The scheme of the resource URIs the gateway hands out: `mcp-host-gateway://<server>/<original URI, encoded>`. */
export const GATEWAY_RESOURCE_SCHEME = 'mcp-host-gateway';

/**
 * The gateway template of a server's resource template: like {@link resourceUri}, with the template's expressions
 * (`{id}`, `{+path}`) kept, so that VS Code's expansion gives a gateway URI whose decoding is the server's own URI.
 */
export function templateUri(server: string, uriTemplate: string): string {
  const body = uriTemplate.replace(/\{[^{}]*\}|[^{]+|\{/g, m => (m.startsWith('{') && m.endsWith('}') ? m : encodeURIComponent(m)));
  return `${GATEWAY_RESOURCE_SCHEME}://${encodeURIComponent(server)}/${body}`;
}

/** The gateway URI of a server's resource. */
export function resourceUri(server: string, uri: string): string {
  return `${GATEWAY_RESOURCE_SCHEME}://${encodeURIComponent(server)}/${encodeURIComponent(uri)}`;
}

/** The server and original URI behind a gateway URI. */
export function parseResourceUri(uri: string): { server: string; uri: string } | undefined {
  const prefix = `${GATEWAY_RESOURCE_SCHEME}://`;
  if (!uri.startsWith(prefix)) return undefined;
  const rest = uri.slice(prefix.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}
