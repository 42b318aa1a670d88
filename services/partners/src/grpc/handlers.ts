import type { ServiceHandlers } from '@esim/grpc';
import type { partnersV1 } from '@esim/proto';
import { approvePartner } from '../domain/approvePartner.js';
import type { PartnersDeps } from '../domain/deps.js';
import { getPartner } from '../domain/getPartner.js';
import { getWebhookEndpoint } from '../domain/getWebhookEndpoint.js';
import { issueApiKey } from '../domain/issueApiKey.js';
import { listApiKeys } from '../domain/listApiKeys.js';
import { listAuditEntries } from '../domain/listAuditEntries.js';
import { listPartners } from '../domain/listPartners.js';
import { login } from '../domain/login.js';
import { lookupApiKey } from '../domain/lookupApiKey.js';
import { register } from '../domain/register.js';
import { rejectPartner } from '../domain/rejectPartner.js';
import { revokeApiKey } from '../domain/revokeApiKey.js';
import { rotateWebhookSecret } from '../domain/rotateWebhookSecret.js';
import { reinstatePartner, suspendPartner } from '../domain/suspendPartner.js';
import { touchApiKey } from '../domain/touchApiKey.js';
import { updatePartner } from '../domain/updatePartner.js';
import { changePassword, confirmPasswordReset, requestPasswordReset } from '../domain/passwordChanges.js';
import { createOperator, listOperators, lookupOperatorToken, revokeOperator, touchOperator, updateOperatorRole } from '../domain/operators.js';
import { resendVerification, verifyEmail } from '../domain/verifyEmail.js';
import { requestTestDataDeletion } from '../domain/requestTestDataDeletion.js';
import { issueTestKey, revokeTestKey } from '../domain/testKeys.js';
import { rotateTestWebhookSecret } from '../domain/testWebhookSecret.js';
import { actorOf, operatorMessage, apiKeyMessage, auditMessage, credentialMessage, partnerMessage } from './views.js';

type PartnersMethods = (typeof partnersV1.PartnersService)['method'];

/** Transport only: each RPC converts its message, calls one use case, converts the answer. */
export function partnersHandlers(deps: PartnersDeps): ServiceHandlers<PartnersMethods> {
  return {
    register: async (r) => partnerMessage(await register(deps, r)),
    login: async (r) => partnerMessage(await login(deps, r.email, r.password)),
    getPartner: async (r) => {
      const { partner, apiKeys, testKeys } = await getPartner(deps, r.id);
      return { partner: partnerMessage(partner), apiKeys: apiKeys.map(apiKeyMessage), testKeys: testKeys.map(apiKeyMessage) };
    },
    listPartners: async (r) => {
      const { partners, total } = await listPartners(deps, r);
      return { partners: partners.map(partnerMessage), total };
    },
    updatePartner: async (r) =>
      partnerMessage(
        await updatePartner(
          deps,
          r.id,
          { tier: r.tier, webhookUrl: r.clearWebhookUrl ? null : r.webhookUrl, testWebhookUrl: r.clearTestWebhookUrl ? null : r.testWebhookUrl },
          r.audit ? actorOf(r.audit) : undefined,
        ),
      ),
    // proto3 sends '' for an unset tier: "keep the partner's".
    approvePartner: async (r) => partnerMessage(await approvePartner(deps, r.id, r.tier || undefined, actorOf(r.audit))),
    rejectPartner: async (r) => partnerMessage(await rejectPartner(deps, r.id, r.reason, actorOf(r.audit))),
    suspendPartner: async (r) => partnerMessage(await suspendPartner(deps, r.id, actorOf(r.audit))),
    reinstatePartner: async (r) => partnerMessage(await reinstatePartner(deps, r.id, actorOf(r.audit))),
    listApiKeys: async (r) => ({ apiKeys: (await listApiKeys(deps, r.partnerId)).map(apiKeyMessage) }),
    issueApiKey: async (r) => apiKeyMessage(await issueApiKey(deps, r.partnerId, r.scopes, actorOf(r.audit))),
    revokeApiKey: async (r) => apiKeyMessage(await revokeApiKey(deps, r.partnerId, r.keyId, actorOf(r.audit))),
    rotateWebhookSecret: async (r) => {
      const { rotatedAt, sealedSecret } = await rotateWebhookSecret(deps, r.id, actorOf(r.audit), r.overlapHours);
      return { rotatedAt: rotatedAt.toISOString(), sealedSecret };
    },
    lookupApiKey: async (r) => credentialMessage(await lookupApiKey(deps, r.prefix)),
    touchApiKey: async (r) => {
      await touchApiKey(deps, r.keyId);
      return {};
    },
    listAuditEntries: async (r) => {
      const { entries, total } = await listAuditEntries(deps, r.page);
      return { entries: entries.map(auditMessage), total };
    },
    getWebhookEndpoint: (r) => getWebhookEndpoint(deps, r.partnerId),
    verifyEmail: async (r) => partnerMessage(await verifyEmail(deps, r.token)),
    resendVerification: async (r) => {
      await resendVerification(deps, r.email);
      return {};
    },
    requestPasswordReset: async (r) => {
      await requestPasswordReset(deps, r.email);
      return {};
    },
    confirmPasswordReset: async (r) => partnerMessage(await confirmPasswordReset(deps, r.token, r.password)),
    changePassword: async (r) => partnerMessage(await changePassword(deps, r)),
    createOperator: async (r) => operatorMessage(await createOperator(deps, r, actorOf(r.audit))),
    listOperators: async (r) => {
      const { operators, total } = await listOperators(deps, r.page);
      return { operators: operators.map(operatorMessage), total };
    },
    revokeOperator: async (r) => operatorMessage(await revokeOperator(deps, r.id, actorOf(r.audit))),
    updateOperatorRole: async (r) => operatorMessage(await updateOperatorRole(deps, r.id, r.role, actorOf(r.audit))),
    lookupOperatorToken: async (r) => ({ ...(await lookupOperatorToken(deps, r.prefix)) }),
    touchOperator: async (r) => {
      await touchOperator(deps, r.operatorId);
      return {};
    },
    issueTestKey: async (r) => {
      const { key, apiKey } = await issueTestKey(deps, r.partnerId, r.requestId);
      return { key, apiKey: apiKeyMessage(apiKey) };
    },
    revokeTestKey: async (r) => apiKeyMessage(await revokeTestKey(deps, r.partnerId, r.keyId, r.audit?.requestId ?? '')),
    rotateTestWebhookSecret: async (r) => {
      const { secret, rotatedAt } = await rotateTestWebhookSecret(deps, r.partnerId, r.requestId);
      return { secret, rotatedAt: rotatedAt.toISOString() };
    },
    requestTestDataDeletion: async (r) => {
      const { accountId, requestedAt } = await requestTestDataDeletion(deps, r.partnerId, r.requestId);
      return { accountId, requestedAt: requestedAt.toISOString() };
    },
  };
}
