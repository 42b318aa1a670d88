// Protects the ES2+ declaration both sides use: the refusal classes of docs/es2plus.md and the tolerant reading of other implementations' bodies (F-padded ICCIDs, integer points sent as strings, null for absent optional fields).
import { describe, expect, it } from 'vitest';
import { confirmOrder, downloadOrder, handleDownloadProgressInfo, refusalKind } from '../src/index.js';

describe('refusalKind', () => {
  it.each([
    ['Failed', '3.7', 'transient'],
    ['Failed', '4.2', 'transient'],
    ['Failed', '5.1', 'transient'],
    ['Failed', '1.1', 'transient'],
    ['Failed', '1.2', 'permanent'],
    ['Failed', '2.2', 'permanent'],
    ['Failed', '3.9', 'permanent'],
    ['Failed', '3.3', 'permanent'],
    ['Failed', '6.4', 'permanent'],
    ['Failed', '9.9', 'transient'],
    ['Expired', '3.9', 'transient'],
  ])('when the status is %s with reason %s, then it is %s', (status, reasonCode, kind) => {
    expect(refusalKind(status, { subjectCode: '8.1', reasonCode })).toBe(kind);
  });

  it('when a refusal carries no statusCodeData, then it is transient', () => {
    expect(refusalKind('Failed', undefined)).toBe('transient');
  });
});

describe('reading other implementations', () => {
  const header = { functionRequesterIdentifier: 'smdp', functionCallIdentifier: 'fci-1' };

  it('when an ICCID is padded with F, then the pad is dropped', () => {
    const answer = downloadOrder.response.parse({ header: { functionExecutionStatus: { status: 'Executed-Success' } }, iccid: '8944123456789012345F' });
    expect(answer.iccid).toBe('8944123456789012345');
  });

  it('when optional output fields are null, then they read as absent', () => {
    const answer = confirmOrder.response.parse({ header: { functionExecutionStatus: { status: 'Executed-Success', statusCodeData: null } }, matchingId: 'M-1', eid: null, smdpAddress: null });
    expect(answer).toMatchObject({ matchingId: 'M-1', eid: undefined, smdpAddress: undefined });
  });

  it('when HandleDownloadProgressInfo names its point as a string and eid as null, then it is read', () => {
    const info = handleDownloadProgressInfo.request.parse({
      header,
      eid: null,
      iccid: '89441234567890123456',
      profileType: 'esim-data',
      timestamp: '2026-01-01T10:00:00Z',
      notificationPointId: '4',
      notificationPointStatus: { status: 'Executed-Success' },
    });
    expect(info).toMatchObject({ notificationPointId: 4, eid: undefined });
  });
});
