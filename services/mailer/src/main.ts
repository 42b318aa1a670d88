import { runService } from '@esim/service';
import { mailerService } from './app.js';

await runService(mailerService);
