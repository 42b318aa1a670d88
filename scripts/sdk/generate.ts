/** `npm run sdk:gen`: boots a gateway (its backends need not run), reads its documents and writes the SDK's generated types. */
import { writeFileSync } from 'node:fs';
import { partnerTypesFile, renderPartnerTypes } from './render.js';
import { readServedDocuments } from './servedDocuments.js';

const docs = await readServedDocuments();
writeFileSync(partnerTypesFile, await renderPartnerTypes(docs.partner));
process.stdout.write(`wrote ${partnerTypesFile}\n`);
process.exit(0);
