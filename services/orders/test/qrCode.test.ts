// Protects the eSIM's QR code: the PNG the orders service writes itself scans to the activation code and shows exactly the pixels the qrcode library's own renderer drew.
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { qrCodeOf } from '../src/domain/qrCode.js';

function decoded(dataUrl: string) {
  const [prefix, base64] = dataUrl.split(',');
  expect(prefix).toBe('data:image/png;base64');
  return PNG.sync.read(Buffer.from(base64!, 'base64'));
}

/** Each pixel as dark (1) or light (0), whatever the PNG's colour type. */
const darkness = (png: PNG) => Array.from({ length: png.width * png.height }, (_, i) => (png.data[i * 4]! < 128 ? 1 : 0));

describe('qrCodeOf', () => {
  const codes = ['LPA:1$smdp.example.com$K2-1ABC23-4DEF56', `LPA:1$rsp.supplier.example$${'X'.repeat(60)}`, 'LPA:1$a.b$1'];

  it.each(codes)('when %s is drawn, then the PNG scans back to it', async (code) => {
    const png = decoded(await qrCodeOf(code));
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(code);
  });

  it.each(codes)('when %s is drawn, then its pixels and size are those of the qrcode renderer at level M', async (code) => {
    const ours = decoded(await qrCodeOf(code));
    const theirs = decoded(await QRCode.toDataURL(code, { errorCorrectionLevel: 'M', type: 'image/png' }));
    expect([ours.width, ours.height]).toEqual([theirs.width, theirs.height]);
    expect(darkness(ours)).toEqual(darkness(theirs));
  });
});
