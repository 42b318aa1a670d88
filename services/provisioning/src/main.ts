import { runService } from '@esim/service';
import { provisioningService } from './app.js';

await runService(provisioningService);
