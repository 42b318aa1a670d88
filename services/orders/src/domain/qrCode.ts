import QRCode from 'qrcode';

/**
 * The PNG data URL a phone's camera scans to install the eSIM. Drawn once,
 * when the eSIM arrives, and stored with the order: reads never redraw it.
 * Level M (15 % recovery) keeps the code small enough for an LPA string.
 */
export function qrCodeOf(activationCode: string): Promise<string> {
  return QRCode.toDataURL(activationCode, { errorCorrectionLevel: 'M', type: 'image/png' });
}
