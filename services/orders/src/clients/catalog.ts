import { createClient, downstreamDeadline, type TlsFiles } from '@esim/grpc';
import { catalogV1 } from '@esim/proto';

/** The price the catalog charges a tier for a plan, as the orders domain uses it. */
export interface PlanPrice {
  planName: string;
  price: number;
  currency: string;
  supplierSku: string;
  /** The SM-DP+ profile type the plan is sourced as (§8, operator data); null: provisioning's default. */
  profileType: string | null;
  countries: string[];
  region: string | null;
  dataMb: number;
  validityDays: number;
}

export interface PriceRequest {
  planId: string;
  tier: string;
  /** The gateway's catalog version the order arrived with (0 or absent: none); only a cache reads it. */
  catalogVersion?: number;
  /** The deadline of the request this price is for (epoch ms): the call ends before it. */
  deadline?: number;
}

export interface Catalog {
  /** PLAN_NOT_AVAILABLE for an unknown or inactive plan; UNAVAILABLE when the catalog does not answer. */
  getPlanPrice(request: PriceRequest): Promise<PlanPrice>;
  close(): void;
}

/** At most this long for the price, and never past the request's own deadline. */
const priceDeadlineMs = 2_000;

/** The catalog's gRPC API, with int64 money converted to number at this edge. */
export function catalogClient(address: string, tls?: TlsFiles): Catalog {
  const client = createClient(catalogV1.CatalogService, address, { tls });
  return {
    async getPlanPrice(request) {
      const answer = await client.getPlanPrice({ planId: request.planId, tier: request.tier }, { deadlineMs: priceDeadlineMs, deadline: downstreamDeadline(request.deadline) });
      return {
        planName: answer.planName,
        price: Number(answer.price),
        currency: answer.currency,
        supplierSku: answer.supplierSku,
        profileType: answer.profileType || null,
        countries: answer.countries,
        region: answer.region ?? null,
        dataMb: answer.dataMb,
        validityDays: answer.validityDays,
      };
    },
    close: () => client.close(),
  };
}
