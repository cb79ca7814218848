// Tool results as text plus attachments (src/extension/commands/render.ts, editor-free): images and audio become a
// line and an attachment, never base64 in the text; what a server claims about a part is checked.
import * as assert from 'node:assert/strict';
import { renderToolResult, MAX_PREVIEW_BYTES } from '../../src/extension/commands/render';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const text = (t: string) => ({ type: 'text' as const, text: t });
const image = (data: string, mimeType = 'image/png') => ({ type: 'image' as const, data, mimeType });

describe('render: tool results as text and attachments', () => {
  it('H87: an image and an audio clip become one line each and two attachments; the text around them stays as it was', () => {
    const r = renderToolResult('s', 't', {}, { content: [text('before'), image(PNG.toString('base64')), text('between'), { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }, text('after')] });
    assert.match(r.markdown, /before\n\n\[image 1: image\/png, 12 B, shown in the image preview\]\n\nbetween\n\n\[audio 1: audio\/wav, 3 B; save it with Save As… \(in the notification\) to open it\]\n\nafter/);
    assert.deepEqual(r.attachments.map(a => [a.label, a.mimeType, a.bytes.byteLength, a.preview]), [['image 1', 'image/png', 12, true], ['audio 1', 'audio/wav', 3, false]]);
    assert.doesNotMatch(r.markdown, /iVBOR|AAAA/);
  });

  it('H87: data that is not base64, bytes that are no image, a JPEG labelled PNG and an image too large to preview each say so', () => {
    const huge = Buffer.alloc(MAX_PREVIEW_BYTES + 1);
    PNG.copy(huge);
    const r = renderToolResult('s', 't', {}, { content: [image('%%% not base64'), image(Buffer.from('plain text').toString('base64')), image(JPEG.toString('base64')), image(huge.toString('base64')), image('AAAA', 'image/tiff')] });
    const lines = r.markdown.split('\n').filter(l => l.startsWith('[image'));
    assert.deepEqual(lines, [
      '[image 1: claims image/png, but its data is not base64, so it is not shown]',
      '[image 2: claims image/png, but its 10 B are not an image of that type, so it is not shown; Save As… writes the bytes]',
      '[image 3: image/jpeg (it claims image/png), 6 B, shown in the image preview]',
      '[image 4: image/png, 16.0 MiB: too large to preview here (over 16 MiB); Save As… writes it]',
      '[image 5: image/tiff, 3 B: not a type the image preview shows; Save As… writes it]',
    ]);
    assert.deepEqual(r.attachments.map(a => [a.label, a.preview]), [['image 2', false], ['image 3', true], ['image 4', false], ['image 5', false]]);
  });

  it('H87: a MIME type with control characters or newlines is one cleaned line', () => {
    const r = renderToolResult('s', 't', {}, { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/x\n# heading\u202e' }] });
    assert.match(r.markdown, /\[audio 1: audio\/x # heading, 3 B;/);
  });
});
