/** The esim-admin executable: runs the command line and exits with its code. */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
