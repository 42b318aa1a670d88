import { mailRecord, open } from '@esim/crypto';
import { PermanentEventError, type EventData } from '@esim/events';

/**
 * The five mails of contract §4, one function each. Lines that partners'
 * tooling and our tests parse (`API key: …`, `Webhook signing secret: …`,
 * `Tier: …`, `Reason: …`, `Scopes: …`) stand alone on their own line.
 * Secrets arrive sealed and are opened here, just before sending, and only
 * ever end up in the returned text.
 */
export type MailRequest = EventData<'mail.requested'>;
export type TemplateName = MailRequest['template'];

export interface RenderedMail {
  subject: string;
  text: string;
}

export interface TemplateInput {
  platformName: string;
  /** The partner portal's base URL (no trailing slash), for links. */
  portalUrl: string;
  /** The operator console's base URL (no trailing slash). */
  consoleUrl: string;
  /** A non-secret value the template needs; a missing one is the publisher's bug, so the request is dropped. */
  value(name: string): string;
  /** A sealed value, opened now. */
  secret(name: string): string;
  /** `values.name`, or undefined: a mail without a name still greets. */
  name: string | undefined;
}

/** Said in every mail that carries a secret (contract §4: a key or secret appears in full only there). */
const shownOnce = 'shown only once, in this e-mail, and cannot be recovered: no page, API or operator can show it to you again';
const greeting = (input: TemplateInput) => (input.name ? `Hello ${input.name},` : 'Hello,');
const signature = (input: TemplateInput) => `-- \nThe ${input.platformName} team`;
const body = (...paragraphs: string[]) => `${paragraphs.join('\n\n')}\n`;

/**
 * Prose is wrapped at 72 columns: with every line under 76, nodemailer sends
 * an ASCII body as 7bit, so the raw message (and an .eml file) shows the
 * secret lines verbatim rather than quoted-printable (`=` as `=3D`).
 * The parsed lines are never wrapped.
 */
function prose(text: string, widthMax = 72): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > widthMax) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line].join('\n');
}

/** A link stands alone on its line (never wrapped), so a partner's tooling and our tests can read the token from it. */
const portalLink = (input: TemplateInput, page: 'verify-email' | 'reset-password', secretName: string) =>
  `${input.portalUrl}/${page}?token=${input.secret(secretName)}`;

export function applicationReceived(input: TemplateInput): RenderedMail {
  return {
    subject: 'Your application was received',
    text: body(
      greeting(input),
      prose(`Thank you for applying to become a partner of ${input.platformName}. We have received your application. First, confirm that this e-mail address is yours by opening this link within 24 hours:`),
      portalLink(input, 'verify-email', 'verifyToken'),
      prose('An operator reviews your application once the address is confirmed; we will e-mail you when it is approved or declined. Meanwhile you can sign in to the partner portal to see your application and set your webhook URL.'),
      prose('If you did not apply, ignore this e-mail: the application is dropped unless the address is confirmed.'),
      signature(input),
    ),
  };
}

export function emailVerification(input: TemplateInput): RenderedMail {
  return {
    subject: 'Confirm your e-mail address',
    text: body(
      greeting(input),
      prose(`Confirm that this e-mail address is yours, so that your application to ${input.platformName} can be reviewed, by opening this link within 24 hours:`),
      portalLink(input, 'verify-email', 'verifyToken'),
      prose('If you did not ask for this, ignore this e-mail.'),
      signature(input),
    ),
  };
}

export function passwordReset(input: TemplateInput): RenderedMail {
  return {
    subject: 'Reset your password',
    text: body(
      greeting(input),
      prose(`Someone asked to reset the password of your partner portal account on ${input.platformName}. To choose a new password, open this link within 30 minutes; it works once:`),
      portalLink(input, 'reset-password', 'resetToken'),
      prose('If you did not ask for this, ignore this e-mail: your password stays as it is.'),
      signature(input),
    ),
  };
}

export function passwordChanged(input: TemplateInput): RenderedMail {
  return {
    subject: 'Your password was changed',
    text: body(
      greeting(input),
      prose(`The password of your partner portal account on ${input.platformName} was just changed, and every portal session signed in before the change was ended.`),
      prose('If you did not do this, reset your password from the portal at once and contact us.'),
      signature(input),
    ),
  };
}

export function webhookUrlChanged(input: TemplateInput): RenderedMail {
  return {
    subject: 'Your webhook URL was changed',
    text: body(
      greeting(input),
      prose(`The webhook URL of your partner account on ${input.platformName} was changed by ${input.value('changedBy')}. Every event from now on goes to the new address.`),
      `Old URL: ${input.value('oldUrl')}\nNew URL: ${input.value('newUrl')}`,
      prose('If you did not expect this change, sign in to the partner portal and set your URL back, change your password, and contact us: the events carry activation codes and your customers’ contact details.'),
      signature(input),
    ),
  };
}

export function operatorInvited(input: TemplateInput): RenderedMail {
  return {
    subject: 'Your operator account',
    text: body(
      greeting(input),
      prose(`An operator account on ${input.platformName} was created for you, with the ${input.value('role')} role. Sign in to the operator console (${input.consoleUrl}) or call the admin API with this token:`),
      `Operator token: ${input.secret('operatorToken')}`,
      prose(`This token is ${shownOnce}. Store it in your password manager now; if it is lost, an admin revokes it and creates a new account.`),
      signature(input),
    ),
  };
}

export function partnerApproved(input: TemplateInput): RenderedMail {
  return {
    subject: 'Your partner account is approved',
    text: body(
      greeting(input),
      prose(`Your partner account on ${input.platformName} is approved: you can now call the partner API.`),
      `Tier: ${input.value('tier')}`,
      prose(`Your API key and your webhook signing secret follow. Each is ${shownOnce}. Store them in your secret manager now.`),
      `API key: ${input.secret('apiKey')}\nWebhook signing secret: ${input.secret('webhookSecret')}`,
      prose('Send the API key as "Authorization: Bearer <key>". Verify every webhook we send you with the signing secret. If you lose the key, an operator can issue a new one; if you lose the signing secret, an operator can rotate it.'),
      signature(input),
    ),
  };
}

export function partnerRejected(input: TemplateInput): RenderedMail {
  return {
    subject: 'Your partner application was declined',
    text: body(
      greeting(input),
      prose(`We are sorry: your application to become a partner of ${input.platformName} was declined.`),
      `Reason: ${input.value('reason')}`,
      prose('If you believe this is a mistake, contact us and we will look at it again.'),
      signature(input),
    ),
  };
}

export function apiKeyIssued(input: TemplateInput): RenderedMail {
  const scopes = input
    .value('scopes')
    .split(/[\s,]+/)
    .filter(Boolean)
    .join(', ');
  return {
    subject: 'A new API key was issued',
    text: body(
      greeting(input),
      prose(`A new API key was issued for your partner account on ${input.platformName}.`),
      `Scopes: ${scopes}`,
      `API key: ${input.secret('apiKey')}`,
      prose(`This key is ${shownOnce}. Store it in your secret manager now. Your other keys keep working until they are revoked.`),
      signature(input),
    ),
  };
}

export function webhookSecretRotated(input: TemplateInput): RenderedMail {
  return {
    subject: 'Your webhook signing secret was rotated',
    text: body(
      greeting(input),
      prose(`The webhook signing secret of your partner account on ${input.platformName} was rotated. Every webhook we send you from now on is signed with the new secret; during the rotation's overlap (24 hours unless the rotation said otherwise) it is signed with the old one as well, then the old one stops signing.`),
      `Webhook signing secret: ${input.secret('webhookSecret')}`,
      prose(`This secret is ${shownOnce}. Store it in your secret manager now and update your webhook receiver.`),
      signature(input),
    ),
  };
}

/** §9: an endpoint failed every attempt for WEBHOOK_DISABLE_AFTER and was disabled. No secret. */
export function webhookEndpointDisabled(input: TemplateInput): RenderedMail {
  return {
    subject: 'A webhook endpoint was disabled',
    text: body(
      greeting(input),
      prose(
        `Every delivery to one of your webhook endpoints on ${input.platformName} has failed for ${input.value('failingFor')}, so we disabled it and stopped sending to it.`,
      ),
      `Endpoint: ${input.value('endpointId')}`,
      `URL: ${input.value('url')}`,
      prose('Once your receiver answers again, enable the endpoint in the portal (or PATCH it with enabled: true), then recover the events it missed with POST /partner/me/webhook-endpoints/{id}/recover.'),
      signature(input),
    ),
  };
}

const endpointChanges: Record<string, { subject: string; verb: string }> = {
  created: { subject: 'A webhook endpoint was added', verb: 'added' },
  updated: { subject: 'A webhook endpoint was changed', verb: 'changed' },
  deleted: { subject: 'A webhook endpoint was deleted', verb: 'deleted' },
  secret_rotated: { subject: 'A webhook endpoint’s signing secret was rotated', verb: 'given a new signing secret' },
};

/** #24: any webhook endpoint change, by the partner or an operator, told at once. No secret. */
export function webhookEndpointChanged(input: TemplateInput): RenderedMail {
  const change = endpointChanges[input.value('change')];
  if (!change) throw new MissingTemplateValueError('webhook_endpoint_changed mail needs values.change to be created, updated, deleted or secret_rotated');
  return {
    subject: change.subject,
    text: body(
      greeting(input),
      prose(`A ${input.value('mode')}-mode webhook endpoint of your partner account on ${input.platformName} was ${change.verb} by ${input.value('changedBy')}.`),
      `Endpoint: ${input.value('endpointId')}\nURL: ${input.value('url')}\nChange: ${input.value('change')}`,
      prose('If you did not expect this change, sign in to the partner portal and review your webhook endpoints, change your password, and contact us: the events carry activation codes and your customers’ contact details.'),
      signature(input),
    ),
  };
}

export const templates: Record<TemplateName, (input: TemplateInput) => RenderedMail> = {
  application_received: applicationReceived,
  partner_approved: partnerApproved,
  partner_rejected: partnerRejected,
  api_key_issued: apiKeyIssued,
  webhook_secret_rotated: webhookSecretRotated,
  webhook_endpoint_disabled: webhookEndpointDisabled,
  webhook_endpoint_changed: webhookEndpointChanged,
  email_verification: emailVerification,
  password_reset: passwordReset,
  password_changed: passwordChanged,
  webhook_url_changed: webhookUrlChanged,
  operator_invited: operatorInvited,
};

/** A value that is missing or empty: retrying cannot fix it, so the consumer terminates the request. */
export class MissingTemplateValueError extends PermanentEventError {
  override name = 'MissingTemplateValueError';
}

/**
 * Values are interpolated into a plain-text body whose lines are parsed, so
 * a partner name holding a newline must not be able to forge an `API key:` line.
 */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();

/** Renders a mail request; the error messages name fields, never their values. */
export function renderMail(
  request: MailRequest,
  dataKey: Buffer,
  platformName: string,
  urls: { portalUrl: string; consoleUrl: string } = { portalUrl: 'http://localhost:8080/portal', consoleUrl: 'http://localhost:8081/console' },
): RenderedMail {
  const value = (field: string) => {
    const text = oneLine(request.values[field] ?? '');
    if (!text) throw new MissingTemplateValueError(`${request.template} mail needs values.${field}`);
    return text;
  };
  const secret = (field: string) => {
    const sealed = request.sealedValues[field];
    if (!sealed) throw new MissingTemplateValueError(`${request.template} mail needs sealedValues.${field}`);
    try {
      return oneLine(open(dataKey, sealed, mailRecord(request.to)));
    } catch {
      // Not permanent: a mismatched DATA_ENCRYPTION_KEY is fixed by a redeploy, and the request waits in the stream meanwhile.
      throw new Error(`sealedValues.${field} could not be opened (is DATA_ENCRYPTION_KEY the partners service's key?)`);
    }
  };
  const name = oneLine(request.values.name ?? '') || undefined;
  const trim = (url: string) => url.replace(/\/+$/, '');
  return templates[request.template]({ platformName, portalUrl: trim(urls.portalUrl), consoleUrl: trim(urls.consoleUrl), value, secret, name });
}
