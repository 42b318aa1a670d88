import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';

/** The qrcode library's default geometry, kept so the image is the one it drew: 4 px a module, a 4-module quiet zone. */
const scale = 4;
const margin = 4;
const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * The PNG data URL a phone's camera scans to install the eSIM. Drawn once,
 * when the eSIM arrives, and stored with the order: reads never redraw it.
 * Level M (15 % recovery) keeps the code small enough for an LPA string.
 *
 * The matrix is the qrcode library's; the PNG is written here, one bit a
 * pixel in greyscale: the library's renderer drew 32-bit RGBA through
 * pngjs's streaming packer, trying five row filters per row, which cost the
 * orders service ~4 ms of CPU per order (docs/benchmarks.md, "What each hop
 * costs"). Same pixels, about a quarter of the bytes, ~1 ms.
 */
export function qrCodeOf(activationCode: string): Promise<string> {
  return Promise.resolve(qrPngDataUrl(activationCode));
}

export function qrPngDataUrl(text: string): string {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const side = (size + margin * 2) * scale;
  const stride = Math.ceil(side / 8);
  // One filter byte (0: none) before each row; a 1 bit is white, as greyscale reads it.
  const raw = Buffer.alloc((stride + 1) * side, 0xff);
  for (let y = 0; y < side; y++) {
    const rowStart = y * (stride + 1);
    raw[rowStart] = 0;
    const my = Math.floor(y / scale) - margin;
    if (my < 0 || my >= size) continue;
    for (let x = margin * scale; x < side - margin * scale; x++) {
      if (modules.data[my * size + Math.floor(x / scale) - margin]) raw[rowStart + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale; compression, filter method and interlace stay 0
  const png = Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
  return `data:image/png;base64,${png.toString('base64')}`;
}
