// Protects §7's request rules for POST /partner/orders: each field at its boundaries answers 400 naming the field (or passes on to the service), and unknown fields and bad bodies are refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { asKey, expectInvalidField, expectProblem, onboardPartner, type Onboarded } from './support/client.js';
import { orderBody } from './support/money.js';

// A well-formed id of no plan: a body that passes validation reaches the orders service and hears 422, so nothing is ever created here.
const unknownPlan = 'plan_01jzzzzzzzzzzzzzzzzzzzzzzz';

let partner: Onboarded;
beforeAll(async () => {
  partner = await onboardPartner();
});

const send = (body: unknown) => asKey(partner.apiKey, '/partner/orders', { body });
const withField = (field: string, value: unknown) => ({ ...orderBody(unknownPlan), [field]: value });
const passes = async (field: string, value: unknown) => expectProblem(await send(withField(field, value)), 422, 'PLAN_NOT_AVAILABLE');
const fails = async (field: string, value: unknown) => expectInvalidField(await send(withField(field, value)), field);

/** 254 characters: a 64-character local part and a 189-character domain. */
const longestEmail = `${'a'.repeat(64)}@${'b'.repeat(61)}.${'c'.repeat(61)}.${'d'.repeat(61)}.abc`;

describe('clientRequestId', () => {
  it('when it is 1 to 64 characters of A-Z a-z 0-9 . _ : -, then it passes', async () => {
    for (const value of ['a', 'x'.repeat(63), 'Az09._:-', `${'y'.repeat(60)}-9:Z`]) await passes('clientRequestId', value);
  });

  it('when it is empty, 65 characters long, has another character, is not a string or is missing, then 400 naming clientRequestId', async () => {
    for (const value of ['', 'x'.repeat(65), 'has space', 'slash/no', 'émoji', 'semi;colon', 42, null]) await fails('clientRequestId', value);
    const { clientRequestId: _, ...missing } = orderBody(unknownPlan);
    expectInvalidField(await send(missing), 'clientRequestId');
  });
});

describe('planId', () => {
  it('when it is 1 to 64 characters, then it passes', async () => {
    for (const value of ['p', 'p'.repeat(64)]) await passes('planId', value);
  });

  it('when it is empty, longer than 64 characters or not a string, then 400 naming planId', async () => {
    for (const value of ['', 'p'.repeat(65), 7, ['plan']]) await fails('planId', value);
  });
});

describe('email', () => {
  it('when it is a valid address of up to 254 characters, then it passes', async () => {
    expect(longestEmail).toHaveLength(254);
    for (const value of ['traveller@example.com', 'first.last+tag@sub.example.co.uk', longestEmail]) await passes('email', value);
  });

  it('when it is not an address or is 255 characters long, then 400 naming email', async () => {
    for (const value of ['not-an-email', 'a@', '@example.com', 'a b@example.com', '', `${longestEmail.slice(0, -3)}abcd`, 12]) await fails('email', value);
  });
});

describe('phoneNumber', () => {
  it('when it is + then 7 to 15 digits, the first not 0, then it passes', async () => {
    for (const value of ['+3361234', '+123456789012345', '+33612345678']) await passes('phoneNumber', value);
  });

  it('when it breaks E.164, then 400 naming phoneNumber with an example', async () => {
    for (const value of ['+336123', '+1234567890123456', '+0612345678', '33612345678', '+33 612345678', '+33-612-345-678', '', 33612345678]) {
      await fails('phoneNumber', value);
    }
    const answer = await send(withField('phoneNumber', '0612345678'));
    expect(answer.body.errors).toContainEqual({ path: 'phoneNumber', message: 'must be E.164, e.g. +33612345678' });
  });
});

describe('the body as a whole', () => {
  it('when every field is missing, then one 400 names all four', async () => {
    const answer = await send({});
    expectProblem(answer, 400, 'VALIDATION_ERROR');
    expect((answer.body.errors as Array<{ path: string }>).map((e) => e.path).sort()).toEqual(['clientRequestId', 'email', 'phoneNumber', 'planId']);
  });

  it('when an unknown field is sent, then 400 naming it', async () => {
    const answer = await send({ ...orderBody(unknownPlan), price: 1 });
    expectProblem(answer, 400, 'VALIDATION_ERROR');
    expect(answer.body.errors).toContainEqual({ path: 'price', message: 'is not a known field' });
  });

  it('when the body is not JSON, not an object or not application/json, then 400 MALFORMED_JSON, 400 VALIDATION_ERROR and 415', async () => {
    expectProblem(await asKey(partner.apiKey, '/partner/orders', { rawBody: '{"planId": ', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    expectProblem(await send([orderBody(unknownPlan)]), 400, 'VALIDATION_ERROR');
    expectProblem(await asKey(partner.apiKey, '/partner/orders', { rawBody: 'planId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
