import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@esim/errors';
import { accountIdOf, partnerIdOf } from '@esim/ids';
import { ordersV1 } from '@esim/proto';
import type { OrdersClient } from '../../backends.js';
import { problems } from '../../http/schemas.js';
import { esimStateView, toEsimView } from '../../views/esims.js';
import { iccidOrNotFound } from '../ids.js';
import { accountOf, type Door, type PartnerDoors } from '../partnerDoors.js';

export interface TestEsimRouteDeps {
  orders: OrdersClient;
  doors: PartnerDoors;
}

/** The simulator acts, then the platform applies its notifications (ES2+ through provisioning's event): room for both. */
const helperDeadlineMs = 25_000;

const actions = {
  install: {
    proto: ordersV1.TestEsimAction.INSTALL,
    summary: 'Test mode: the traveller installs the eSIM',
    effect: 'the simulator’s SM-DP+ reports the profile installed: the eSIM becomes `installed` and `esim.installed` is sent',
  },
  usage: {
    proto: ordersV1.TestEsimAction.USAGE,
    summary: 'Test mode: the traveller uses data',
    effect:
      '`addMb` megabytes are drawn from the active bundle, then the next queued ones (an eSIM never installed is installed first); ' +
      '`esim.usage_threshold` is sent at 80 % and 100 % of a bundle',
  },
  expire: {
    proto: ordersV1.TestEsimAction.EXPIRE,
    summary: 'Test mode: the active bundle’s validity ends now',
    effect: 'the active bundle becomes `expired` and `esim.bundle_expired` is sent; the oldest queued bundle is next',
  },
  delete: {
    proto: ordersV1.TestEsimAction.DELETE,
    summary: 'Test mode: the traveller deletes the profile',
    effect: 'the eSIM becomes `deleted` and `esim.deleted` is sent',
  },
} as const;

const usageBody = z.strictObject({
  addMb: z.number().int().positive().max(1_048_576).describe('Megabytes the traveller used: a positive integer.'),
});

/** A live key on a test helper: 403 before anything else is read (contract §14). */
async function testModeOnly(request: FastifyRequest): Promise<void> {
  if (accountOf(request).livemode) throw new AppError('TEST_MODE_ONLY', 'Test helpers work with a test key (sk_test_…) only.');
}

/**
 * The account a helper acts on: the test key's own account; the portal's
 * twin always acts on the partner's test account (its buttons sit on a test
 * eSIM's page), whichever mode the portal session shows.
 */
function testAccountOf(request: FastifyRequest, door: Door): string {
  const { partnerId } = accountOf(request);
  return door.portal ? accountIdOf(partnerIdOf(partnerId), false) : partnerId;
}

/**
 * Test mode's helpers (contract §14): `POST /partner/test/esims/{iccid}/install`,
 * `…/usage {addMb}`, `…/expire`, `…/delete` (test key, orders:write) and their
 * portal twins under `/partner/me/test/esims/…`. Each drives the test-mode
 * simulator as §13's control API does and answers 200 with the eSIM view once
 * the resulting notifications are applied, so the test webhook receives the
 * same events as in live.
 */
export function testEsimRoutes(app: FastifyInstance, { orders, doors }: TestEsimRouteDeps): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const door of doors.both('orders:write')) {
    const tags = [door.portal ? 'Portal' : 'Test mode'];
    const portal = door.portal ? ' (portal, on the test account)' : '';
    for (const [name, action] of Object.entries(actions) as Array<[keyof typeof actions, (typeof actions)[keyof typeof actions]]>) {
      const description =
        `${door.portal ? 'Acts on the partner’s test-mode eSIM. ' : 'Test key only: a live key answers 403 TEST_MODE_ONLY. '}` +
        `The test-mode simulator plays the traveller: ${action.effect}. 200 with the eSIM view once the resulting notifications are applied. ` +
        'An unknown, malformed, live or another partner’s ICCID: 404 ESIM_NOT_FOUND; 503 UNAVAILABLE when the simulator cannot act now.';
      const route = {
        schema: {
          tags,
          summary: `${action.summary}${portal}`,
          description,
          security: door.security,
          params: z.object({ iccid: z.string() }),
          ...(name === 'usage' ? { body: usageBody } : {}),
          response: { 200: esimStateView, ...problems(400, 404, 413, 415), ...door.problems },
        },
        onRequest: door.onRequest,
        ...(door.portal ? {} : { preValidation: testModeOnly }),
      };
      typed.post(`${door.prefix}/test/esims/:iccid/${name}`, route, async (request) => {
        const addMb = name === 'usage' ? (request.body as z.infer<typeof usageBody>).addMb : 0;
        const esim = await orders.driveTestEsim(
          { partnerId: testAccountOf(request, door), iccid: iccidOrNotFound(request.params.iccid), action: action.proto, addMb },
          { deadlineMs: helperDeadlineMs },
        );
        return toEsimView(esim);
      });
    }
  }
}
