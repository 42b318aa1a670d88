// The SDK's committed types are what openapi-typescript makes of the live documents: `npm run sdk:gen` after any API or event change.
import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { eventTypesFile, partnerTypesFile, renderEventTypes, renderPartnerTypes } from '../../../scripts/sdk/render.js';
import { readServedDocuments, type ServedDocuments } from '../../../scripts/sdk/servedDocuments.js';

let docs: ServedDocuments;
beforeAll(async () => {
  docs = await readServedDocuments();
});

it('when the partner document is rendered again, then it equals the committed generated types (run `npm run sdk:gen` if not)', async () => {
  expect(readFileSync(partnerTypesFile, 'utf8')).toBe(await renderPartnerTypes(docs.partner));
});

it('when the AsyncAPI document is rendered again, then it equals the committed event types (run `npm run sdk:gen` if not)', async () => {
  expect(readFileSync(eventTypesFile, 'utf8')).toBe(await renderEventTypes(docs.asyncapi));
});
