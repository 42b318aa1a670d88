import { runService } from '@esim/service';
import { webhooksService } from './app.js';

await runService(webhooksService);
