import { runService } from '@esim/service';
import { partnersService } from './app.js';

await runService(partnersService);
