import { runService } from '@esim/service';
import { gatewayService } from './app.js';

await runService(gatewayService);
