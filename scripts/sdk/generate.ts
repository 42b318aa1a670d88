/** `npm run sdk:gen`: boots a gateway (its backends need not run), reads its documents and writes the SDK's generated types. */
import { writeFileSync } from 'node:fs';
import { eventTypesFile, partnerTypesFile, renderEventTypes, renderPartnerTypes } from './render.js';
import { readServedDocuments } from './servedDocuments.js';

const docs = await readServedDocuments();
writeFileSync(partnerTypesFile, await renderPartnerTypes(docs.partner));
writeFileSync(eventTypesFile, await renderEventTypes(docs.asyncapi));
process.stdout.write(`wrote ${partnerTypesFile} and ${eventTypesFile}\n`);
process.exit(0);
