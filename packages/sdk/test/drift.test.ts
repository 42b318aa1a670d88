// The SDK's committed types are what openapi-typescript makes of the live partner document: `npm run sdk:gen` after any API change.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { partnerTypesFile, renderPartnerTypes } from '../../../scripts/sdk/render.js';
import { readServedDocuments } from '../../../scripts/sdk/servedDocuments.js';

it('when the partner document is rendered again, then it equals the committed generated types (run `npm run sdk:gen` if not)', async () => {
  const docs = await readServedDocuments();
  expect(readFileSync(partnerTypesFile, 'utf8')).toBe(await renderPartnerTypes(docs.partner));
});
