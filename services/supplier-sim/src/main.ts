import { runService } from '@esim/service';
import { supplierSimService } from './app.js';

await runService(supplierSimService);
