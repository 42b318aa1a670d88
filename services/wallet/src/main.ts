import { runService } from '@esim/service';
import { walletService } from './app.js';

await runService(walletService);
