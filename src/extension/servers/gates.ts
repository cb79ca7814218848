/**
 * Starting a configured server: the one gate every explicit start passes (Workspace Trust, launch consent for
 * workspace servers, `${input:}` values; one consent dialog for several servers), and the first use of a server
 * that waits for it (`mcpHost.startup: lazy`), which never asks again about a server the user denied.
 */
import * as vscode from 'vscode';
import type { ServerDefinition } from '../../mcp';
import type { ConsentRequest, InputUse } from '../trust/consent';
import { ServerControllerState } from './state';
import { ConsentDeniedError, DENIED, NEEDS_INPUT, WAITING } from './reasons';
import { inputUses } from './workspaceSettings';
import { needsLaunchConsent } from '../trust/addedServers';

/** The start gates and lazy starts (ServerController's base). */
export abstract class ServerGates extends ServerControllerState {
  /**
   * Starts a server, first clearing what holds it back (asks for launch consent or inputs; refuses
   * in Restricted Mode with a readable message). Rejects with a readable error when it cannot start.
   * The user's own act (Start Server, the tree's Start): a denied server is asked about again.
   */
  async start(name: string): Promise<void> {
    const [err] = await this.startMany([name]);
    if (err) throw err;
  }

  /**
   * The one gate every explicit start passes (Start, Start All, Restart, chat buttons, commands): clears
   * what holds each server back, asking consent for all of them in one dialog, then starts the ones
   * allowed (or restarts them with `restart`). Resolves one error (or undefined) per name, in order.
   * `explicit: false` (a lazy start on first use, a chat request, a model's tool call) never asks about a
   * server the user denied: it gets a ConsentDeniedError naming the server and how to allow it.
   */
  async startMany(names: string[], restart = false, explicit = true): Promise<(Error | undefined)[]> {
    const errors = await this.clearGates(names, explicit);
    await Promise.all(names.map(async (name, i) => {
      if (errors[i]) return;
      const h = this.host.get(name);
      try {
        if (restart && h && h.state.kind !== 'stopped') await h.restart();
        else await h?.start();
      } catch (err) {
        errors[i] = err instanceof Error ? err : new Error(String(err));
      }
    }));
    return errors;
  }

  /** Restarts a server through the same gate as a start: a server held back asks again first. */
  async restart(name: string): Promise<void> {
    const [err] = await this.startMany([name], true);
    if (err) throw err;
  }

  private async clearGates(names: string[], explicit: boolean): Promise<(Error | undefined)[]> {
    await this.queue;
    // Launch consent is keyed: a start asked for before the installation key was read waits for it (issue 41).
    if (!this.keyState.has()) await this.keyState.ready;
    const errors: (Error | undefined)[] = names.map(name => {
      if (!this.host.get(name)) return new Error(`No MCP server named "${name}" is configured.`);
      if (this.origins.get(name) === 'workspace' && !vscode.workspace.isTrusted) {
        return new Error(`"${name}" is defined in workspace settings and the workspace is not trusted (Restricted Mode). Trust the workspace to start it.`);
      }
      // Only the user's own start asks about a denied server again (no dialog, no input box here).
      if (!explicit && this.isDenied(name)) return new ConsentDeniedError(name);
      return undefined;
    });
    const held = names.filter((n, i) => !errors[i] && (this.blocked.has(n) || this.waitsForConsent(n)));
    if (!held.length) return errors;
    for (const n of held) this.promptFor.add(n);
    try { await this.sync(); } finally { for (const n of held) this.promptFor.delete(n); }
    const ask: string[] = [];
    names.forEach((name, i) => {
      if (errors[i] || !held.includes(name)) return;
      const reason = this.blocked.get(name);
      if (reason?.startsWith(NEEDS_INPUT)) errors[i] = new Error(`"${name}" ${reason}.`);
      else if (this.waitsForConsent(name)) ask.push(name);
      else if (reason && reason !== WAITING && reason !== DENIED) errors[i] = new Error(`"${name}": ${reason}.`);
      else this.unblock(name);
    });
    if (ask.length) {
      const defs = ask.map(n => this.host.get(n)!.definition);
      const answers = await this.consent.ensureAll(defs.map(def => this.requestOf(def)), { askDenied: explicit });
      ask.forEach((name, k) => {
        const i = names.indexOf(name);
        if (answers[k]) { this.allowed(name); this.unblock(name); }
        else {
          this.block(name, DENIED);
          errors[i] = new ConsentDeniedError(name, explicit);
        }
      });
    }
    return errors;
  }

  /** True when `name` waits for consent the user denied (or whose dialog was dismissed) for this definition. */
  isDenied(name: string): boolean {
    const def = this.host.get(name)?.definition;
    return !!def && this.waitsForConsent(name) && this.consent.wasDenied(def);
  }

  /** What a lazy start, chat or a model is told about a denied server: its name and how to allow it. */
  deniedMessage(name: string): string {
    return new ConsentDeniedError(name).message;
  }

  /** True when `name` is a workspace server that needs launch consent it does not have. */
  protected waitsForConsent(name: string): boolean {
    const def = this.host.get(name)?.definition;
    return !!def && this.needsConsent(def) && !this.consent.isAllowed(def);
  }

  /** True when `def` starts only with launch consent: the rule is `needsLaunchConsent` (addedServers.ts). */
  protected needsConsent(def: ServerDefinition): boolean {
    // Written by a tool, not the user: added by MCP Host (import, registry), or read from another client's file.
    return needsLaunchConsent(this.origins.get(def.name), this.added.has(this.raws.get(def.name)) || this.portableFrom.get(def.name)?.source === 'copilotCli');
  }

  /**
   * `needsConsent` as far as it is known before the installation key was read (issue 41): true for a workspace server
   * or one read from another client's file, false for a user server while MCP Host's record of servers it added is
   * empty, undefined when only that (keyed) record could tell.
   */
  protected needsConsentBeforeKey(def: ServerDefinition): boolean | undefined {
    if (needsLaunchConsent(this.origins.get(def.name), this.portableFrom.get(def.name)?.source === 'copilotCli')) return true;
    return this.added.isEmpty() ? false : undefined;
  }

  /** The user allowed `name`: a server the host added is no longer asked about by that rule (the usual rules apply). */
  protected allowed(name: string): void {
    void this.added.forget(this.raws.get(name));
  }

  /** What the consent dialog is asked about one server: its definition, its `${input:}` uses, the roots it is sent. */
  protected requestOf(def: ServerDefinition): ConsentRequest {
    return { def, uses: this.usesOf(def.name), roots: this.host.rootsFor(def), scope: this.origins.get(def.name) ?? 'user', source: this.portableFrom.get(def.name)?.label };
  }

  /** Which `${input:}` ids go where in a server's settings (for the consent dialog). */
  protected usesOf(name: string): InputUse[] {
    const raw = this.raws.get(name);
    return raw ? inputUses(raw) : [];
  }

  /** True when `server` waits for its first use (a denied server does not: only an explicit Start asks about it). */
  waitsForUse(server: string): boolean {
    return this.lazy.has(server) && this.host.get(server)?.state.kind === 'stopped' && !this.isDenied(server);
  }

  /**
   * First use of a lazy server (expanding it, a chat request): start it, once. A use is not the user's own start:
   * the consent dialog may show the first time, never again after "Don't Allow".
   */
  startOnUse(server: string): void {
    if (!this.waitsForUse(server)) return;
    this.lazy.delete(server);
    void this.startMany([server], false, false).then(([err]) => {
      // A denial was logged once where it was answered.
      if (err && !(err instanceof ConsentDeniedError)) this.log.warn(`${server}: could not start on first use: ${err.message}`);
    });
  }

  /** First use by a command: start it and resolve once it runs (or failed). */
  async startOnUseAndWait(server: string): Promise<void> {
    if (!this.waitsForUse(server)) return;
    this.lazy.delete(server);
    const [err] = await this.startMany([server], false, false);
    if (err) throw err;
  }

  /**
   * A use that is not an explicit Start (a resource document opening, or restored after a reload): waits for the
   * settings to be read, then for a starting server; starts a server waiting for its first use (launch consent asked
   * if it was never answered). Never asks again about a server whose launch the user denied, and never starts one
   * the user stopped: rejects with a message that says what to do instead.
   */
  async ensureRunningForUse(name: string): Promise<void> {
    await this.queue;
    if (!this.keyState.has()) await this.keyState.ready;
    const h = this.host.get(name);
    if (!h) {
      throw new Error(this.restricted.includes(name)
        ? `"${name}" is defined in workspace settings and the workspace is not trusted (Restricted Mode). Trust the workspace to start it.`
        : `No MCP server named "${name}" is configured.`);
    }
    if (h.state.kind === 'running') return;
    if (h.state.kind === 'starting') { await h.start(); return; }
    const reason = this.heldReason(name);
    if (reason === DENIED || this.consent.wasDenied(h.definition)) {
      throw new Error(`Launching "${name}" was not allowed in this window, so it is not asked again for a document. Start the server (Servers view or MCP Host: Start Server) to be asked again.`);
    }
    if (reason === WAITING || this.waitsForUse(name)) {
      this.lazy.delete(name);
      await this.start(name);
      return;
    }
    if (reason) throw new Error(`"${name}" ${reason.startsWith(NEEDS_INPUT) ? reason : `cannot start: ${reason}`}.`);
    if (h.state.kind === 'error') throw new Error(`MCP server "${name}" failed: ${h.redactor.text(h.state.message)}`);
    throw new Error(`MCP server "${name}" is stopped. Start it to read its resources.`);
  }

  /** Starts every server still waiting for its first use and resolves once each runs or failed (bounded). */
  async startWaiting(timeoutMs = 30_000): Promise<void> {
    const names = [...this.lazy].filter(n => this.waitsForUse(n));
    if (!names.length) return;
    names.forEach(n => this.lazy.delete(n));
    await Promise.race([this.startMany(names, false, false), new Promise(r => setTimeout(r, timeoutMs))]);
  }

  /** Asks consent for the servers an automatic start waits for (one dialog for several), then starts the allowed ones. */
  protected async askConsent(defs: ServerDefinition[]): Promise<void> {
    const answers = await this.consent.ensureAll(defs.map(def => this.requestOf(def)));
    await Promise.all(defs.map(async (def, i) => {
      const current = this.host.get(def.name);
      if (!current || this.definitionKey(current.definition) !== this.definitionKey(def)) return;
      if (!answers[i]) {
        this.block(def.name, DENIED);
        if (current.state.kind !== 'stopped') await current.stop();
        return;
      }
      this.allowed(def.name);
      this.unblock(def.name);
      try {
        await current.start();
      } catch {
        // State and log line already tell the user.
      }
    }));
  }
}
