/**
 * The eSIM lifecycle moved to src/esims/ (its seam is esims/lifecycle.ts);
 * this re-export keeps the cancellation saga's import where it was, so the
 * move changed no behaviour and no file outside the lifecycle.
 */
export { activateNext } from '../esims/notification.js';
