/** MIME types for resource documents and result attachments: language ids, file extensions, image signatures, base64. */
const TABLE: Record<string, [language: string, ext: string]> = {
  'text/plain': ['plaintext', '.txt'],
  'text/markdown': ['markdown', '.md'],
  'text/x-markdown': ['markdown', '.md'],
  'text/html': ['html', '.html'],
  'text/css': ['css', '.css'],
  'text/csv': ['plaintext', '.csv'],
  'text/xml': ['xml', '.xml'],
  'application/xml': ['xml', '.xml'],
  'application/json': ['json', '.json'],
  'application/ld+json': ['json', '.json'],
  'application/x-ndjson': ['plaintext', '.jsonl'],
  'text/javascript': ['javascript', '.js'],
  'application/javascript': ['javascript', '.js'],
  'application/typescript': ['typescript', '.ts'],
  'text/x-typescript': ['typescript', '.ts'],
  'text/x-python': ['python', '.py'],
  'text/x-shellscript': ['shellscript', '.sh'],
  'application/x-sh': ['shellscript', '.sh'],
  'text/yaml': ['yaml', '.yaml'],
  'application/yaml': ['yaml', '.yaml'],
  'application/x-yaml': ['yaml', '.yaml'],
  'text/x-rust': ['rust', '.rs'],
  'text/x-go': ['go', '.go'],
  'text/x-java': ['java', '.java'],
  'text/x-c': ['c', '.c'],
  'image/svg+xml': ['xml', '.svg'],
};

const IMAGE_EXT: Record<string, string> = {
  'image/png': '.png', 'image/jpeg': '.jpg', 'image/gif': '.gif', 'image/webp': '.webp', 'image/bmp': '.bmp',
  'image/x-icon': '.ico', 'image/vnd.microsoft.icon': '.ico',
};

const AUDIO_EXT: Record<string, string> = {
  'audio/wav': '.wav', 'audio/x-wav': '.wav', 'audio/wave': '.wav', 'audio/mpeg': '.mp3', 'audio/mp3': '.mp3', 'audio/ogg': '.ogg',
  'audio/webm': '.weba', 'audio/flac': '.flac', 'audio/x-flac': '.flac', 'audio/mp4': '.m4a', 'audio/aac': '.aac',
};

function base(mime: string | undefined): string | undefined {
  return mime?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** The language id for a MIME type, or undefined when VS Code should guess. */
export function languageForMime(mime: string | undefined): string | undefined {
  const m = base(mime);
  if (!m) return undefined;
  if (TABLE[m]) return TABLE[m][0];
  if (m.endsWith('+json')) return 'json';
  if (m.endsWith('+xml')) return 'xml';
  return undefined;
}

/** The file extension (with dot) for a MIME type, or '' when unknown. */
export function extensionForMime(mime: string | undefined): string {
  const m = base(mime);
  if (!m) return '';
  return IMAGE_EXT[m] ?? AUDIO_EXT[m] ?? TABLE[m]?.[1] ?? (m.endsWith('+json') ? '.json' : m.startsWith('text/') ? '.txt' : '');
}

/** True for images VS Code's image preview shows (SVG opens as text). */
export function isPreviewableImage(mime: string | undefined): boolean {
  const m = base(mime);
  return m !== undefined && m in IMAGE_EXT;
}

/** The image type the bytes are, from their signature (PNG, JPEG, GIF, WebP, BMP, ICO), or undefined. */
export function sniffImage(bytes: Uint8Array): string | undefined {
  const at = (i: number, ...b: number[]) => b.every((x, k) => bytes[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  if (at(0, 0x42, 0x4d) && bytes.byteLength > 14) return 'image/bmp';
  if (at(0, 0x00, 0x00, 0x01, 0x00)) return 'image/x-icon';
  return undefined;
}

/** Standard base64 (padding optional, no white space): the bytes, or undefined when `data` is not base64. */
export function decodeBase64(data: unknown): Buffer | undefined {
  if (typeof data !== 'string' || data.length % 4 === 1 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return undefined;
  return Buffer.from(data, 'base64');
}

export { formatBytes } from '../../mcp';
