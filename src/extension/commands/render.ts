/**
 * Tool and prompt results as markdown text plus their binary parts: text stays text, and every image, audio clip or
 * embedded binary resource becomes one line naming it (kind, type, size) and an attachment the results store opens in
 * the image preview or offers to Save As… — never base64 in the text. What a server claims is checked: data that is
 * not base64, an "image/png" whose bytes are no image, or an image too large to preview becomes a line that says so.
 */
import type { CallToolResult, GetPromptResult, ContentBlock } from '@modelcontextprotocol/client';
import { shownName } from '../../mcp';
import { decodeBase64, formatBytes, isPreviewableImage, sniffImage } from '../documents/mime';
import * as l10n from '@vscode/l10n';

/** Images larger than this are not opened in the image preview (Save As… still writes them). */
export const MAX_PREVIEW_BYTES = 16 * 1024 * 1024;

/** A binary part of a result: what the text calls it, its type and bytes, and whether the image preview shows it. */
export interface ResultAttachment {
  /** "image 1", "audio 2", "resource 1": the name the text and the tab use. */
  label: string;
  /** The MIME type to save and show it as (for an image, the type its bytes are). */
  mimeType: string;
  bytes: Uint8Array;
  /** Open it in the image preview. */
  preview: boolean;
}

/** A result as the results store opens it: the markdown text and the binary parts it names. */
export interface RenderedResult {
  markdown: string;
  attachments: ResultAttachment[];
}

/** Renders a tool result: text, images and audio (as attachments), resource links, embedded resources, structured content, isError. */
export function renderToolResult(server: string, tool: string, args: Record<string, unknown>, r: CallToolResult): RenderedResult {
  const parts = new Parts();
  const out = [`# ${tool} — ${server}`, ''];
  if (r.isError) out.push(l10n.t('**The tool reported an error** (`isError: true`).'), '');
  out.push(`## ${l10n.t('Arguments')}`, '', fence(JSON.stringify(args, null, 2), 'json'), '', `## ${l10n.t('Result')}`, '');
  for (const block of r.content ?? []) out.push(parts.block(block), '');
  if (r.structuredContent !== undefined) out.push(`## ${l10n.t('Structured content')}`, '', fence(JSON.stringify(r.structuredContent, null, 2), 'json'), '');
  if (!(r.content ?? []).length && r.structuredContent === undefined) out.push(l10n.t('_(empty result)_'));
  return { markdown: out.join('\n'), attachments: parts.attachments };
}

/** Renders a prompt's messages, one section per message. */
export function renderPromptResult(server: string, prompt: string, r: GetPromptResult): RenderedResult {
  const parts = new Parts();
  const out = [`# ${prompt} — ${server}`, ''];
  if (r.description) out.push(`_${r.description}_`, '');
  for (const m of r.messages) out.push(`## ${m.role}`, '', parts.block(m.content as ContentBlock), '');
  return { markdown: out.join('\n'), attachments: parts.attachments };
}

/** The numbering and the attachments of one result. */
class Parts {
  readonly attachments: ResultAttachment[] = [];
  private readonly counts = { image: 0, audio: 0, resource: 0 };

  block(b: ContentBlock): string {
    switch (b.type) {
      case 'text': return b.text;
      case 'image': return this.binary('image', b.mimeType, b.data);
      case 'audio': return this.binary('audio', b.mimeType, b.data);
      case 'resource_link': return `${l10n.t('Resource link: {0}', `[${b.title ?? b.name}](${b.uri})`)}${b.mimeType ? ` (${b.mimeType})` : ''}${b.description ? ` — ${b.description}` : ''}`;
      case 'resource': {
        const res = b.resource;
        const head = `${l10n.t('Embedded resource {0}', `\`${res.uri}\``)}${res.mimeType ? ` (${res.mimeType})` : ''}`;
        return 'text' in res ? `${head}:\n\n${fence(res.text, '')}` : `${head}: ${this.binary('resource', res.mimeType, res.blob)}`;
      }
      default: return fence(JSON.stringify(b, null, 2), 'json');
    }
  }

  /** One line for a binary part; its bytes become an attachment when they are what they claim to be. */
  private binary(kind: 'image' | 'audio' | 'resource', claimed: unknown, data: unknown): string {
    const label = `${kind} ${++this.counts[kind]}`;
    const mime = shownName(typeof claimed === 'string' && claimed ? claimed : l10n.t('no MIME type'), 100);
    const bytes = decodeBase64(data);
    if (!bytes) return l10n.t('[{0}: claims {1}, but its data is not base64, so it is not shown]', label, mime);
    const size = formatBytes(bytes.byteLength);
    const isImage = kind === 'image' || /^image\//i.test(mime);
    if (!isImage) {
      this.attachments.push({ label, mimeType: mime, bytes, preview: false });
      return l10n.t('[{0}: {1}, {2}; save it with Save As… (in the notification) to open it]', label, mime, size);
    }
    const actual = sniffImage(bytes);
    if (isPreviewableImage(mime) || actual) {
      if (!actual) {
        this.attachments.push({ label, mimeType: mime, bytes, preview: false });
        return l10n.t('[{0}: claims {1}, but its {2} are not an image of that type, so it is not shown; Save As… writes the bytes]', label, mime, size);
      }
      const note = sameImageType(actual, mime) ? '' : l10n.t(' (it claims {0})', mime);
      if (bytes.byteLength > MAX_PREVIEW_BYTES) {
        this.attachments.push({ label, mimeType: actual, bytes, preview: false });
        return l10n.t('[{0}: {1}{2}, {3}: too large to preview here (over {4}); Save As… writes it]', label, actual, note, size, formatBytes(MAX_PREVIEW_BYTES));
      }
      this.attachments.push({ label, mimeType: actual, bytes, preview: true });
      return l10n.t('[{0}: {1}{2}, {3}, shown in the image preview]', label, actual, note, size);
    }
    this.attachments.push({ label, mimeType: mime, bytes, preview: false });
    return l10n.t('[{0}: {1}, {2}: not a type the image preview shows; Save As… writes it]', label, mime, size);
  }
}

function sameImageType(actual: string, claimed: string): boolean {
  const c = claimed.split(';')[0].trim().toLowerCase();
  return c === actual || (actual === 'image/jpeg' && c === 'image/jpg') || (actual === 'image/x-icon' && c === 'image/vnd.microsoft.icon');
}

function fence(text: string, lang: string): string {
  const ticks = text.includes('```') ? '~~~~' : '```';
  return `${ticks}${lang}\n${text}\n${ticks}`;
}
