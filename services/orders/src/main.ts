import { runService } from '@esim/service';
import { ordersService } from './app.js';

await runService(ordersService);
