import { runService } from '@esim/service';
import { catalogService } from './app.js';

await runService(catalogService);
