/**
 * How a negotiated protocol version reads wherever it is shown (views, CLI, logs): "MCP 2025-11-25". The era names
 * ('legacy' / 'modern') are the SDK's words for the handshake, not a verdict on the server: a person reads "legacy"
 * as "outdated", so what is shown is the revision, and the handshake is described only where it helps (tooltips, logs).
 */
import type { ServerState } from '../types';

type Era = Extract<ServerState, { kind: 'running' }>['era'];

export function protocolLabel(version: string | undefined): string {
  return version ? `MCP ${version}` : 'MCP (version unknown)';
}

/** The handshake of an era in a few words, for a log line: "stateless" or "initialize handshake". */
export function eraShort(era: Era): string {
  return era === 'modern' ? 'stateless' : 'initialize handshake';
}

/** The handshake of an era in a sentence, for a tooltip. */
export function eraDetail(era: Era): string {
  return era === 'modern'
    ? 'stateless protocol (2026-07-28 and later): no initialize, every request carries its own context'
    : 'initialize handshake (protocol revisions up to 2025-11-25)';
}
