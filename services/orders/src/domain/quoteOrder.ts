import { AppError } from '@esim/errors';
import type { OrdersDeps } from './deps.js';
import { checkOrderRequest } from './requestRules.js';
import { checkQuantity } from './quantity.js';
import { toppableEsim } from './topUpRules.js';

export interface QuoteRequest {
  partnerId: string;
  tier: string;
  planId: string;
  email: string;
  phoneNumber: string;
  iccid?: string | undefined;
  /** 0 or absent: one. */
  quantity?: number;
  catalogVersion?: number;
}

export interface Quote {
  planId: string;
  quantity: number;
  unitPrice: number;
  price: number;
  currency: string;
  walletBalance: number;
  /** walletBalance − price: negative when the balance falls short. */
  balanceAfter: number;
  sufficientBalance: boolean;
  /** Null unless a top-up (iccid) is quoted: whether the plan covers every country of the eSIM. */
  compatible: boolean | null;
}

/**
 * What an order would cost against the wallet now (contract §7 quotes),
 * recording nothing: the create's checks in the create's order (the eSIM of
 * a top-up, then the plan), the price the catalog shows this partner, and
 * the balance. A short balance is an answer (`sufficientBalance: false`),
 * never 402; a top-up plan that does not cover the eSIM is an answer too
 * (`compatible: false`, docs/decisions.md), while a create would refuse it.
 */
export async function quoteOrder(deps: OrdersDeps, input: QuoteRequest): Promise<Quote> {
  // The create's rules, with a placeholder for the key a quote does not take.
  const request = checkOrderRequest({ ...input, clientRequestId: 'quote', iccid: input.iccid });
  const quantity = checkQuantity(input.quantity, request.iccid);
  const esim = request.iccid === undefined ? undefined : await toppableEsim(deps.pool, request.partnerId, request.iccid);
  const plan = await deps.catalog.getPlanPrice({ planId: request.planId, tier: request.tier, catalogVersion: input.catalogVersion });
  if (plan.currency !== deps.currency) throw new AppError('INTERNAL', `catalog prices in ${plan.currency}, orders are in ${deps.currency}`);
  const walletBalance = await deps.wallet.balance(request.partnerId);
  const price = plan.price * quantity;
  return {
    planId: request.planId,
    quantity,
    unitPrice: plan.price,
    price,
    currency: plan.currency,
    walletBalance,
    balanceAfter: walletBalance - price,
    sufficientBalance: walletBalance >= price,
    compatible: esim === undefined ? null : esim.countries.every((country) => plan.countries.includes(country)),
  };
}
