/**
 * Client-side `stopSequences` for sampling: vscode.lm has no such option, so the model's text is cut here.
 * No `vscode` import: unit-tested in plain mocha.
 */

/**
 * Cuts `text` at the first of `stops` (client-side `stopSequences`, since vscode.lm has no such
 * option). Returns the text and whether a stop sequence ended it.
 */
export function applyStopSequences(text: string, stops: readonly string[] | undefined): { text: string; stopped: boolean } {
  let cut = -1;
  for (const s of stops ?? []) {
    if (!s) continue;
    const i = text.indexOf(s);
    if (i >= 0 && (cut < 0 || i < cut)) cut = i;
  }
  return cut < 0 ? { text, stopped: false } : { text: text.slice(0, cut), stopped: true };
}
