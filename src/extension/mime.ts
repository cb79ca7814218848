/** MIME type → VS Code language id and file extension, for resource documents. */
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
  return IMAGE_EXT[m] ?? TABLE[m]?.[1] ?? (m.endsWith('+json') ? '.json' : m.startsWith('text/') ? '.txt' : '');
}

/** True for images VS Code's image preview shows (SVG opens as text). */
export function isPreviewableImage(mime: string | undefined): boolean {
  const m = base(mime);
  return m !== undefined && m in IMAGE_EXT;
}
