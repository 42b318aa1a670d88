// Protects §3's promise that every status the API can answer is in its OpenAPI document: each operation of both documents lists the statuses the HTTP layer can give on it (400, 413/415 where a body is read, 404 where an id is named, 503), each as application/problem+json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeStatuses } from '../src/http/edgeProblems.js';
import { startLonelyGateway, type LonelyGateway } from './support/lonelyGateway.js';

let gateway: LonelyGateway;
const documents: Record<string, any> = {};

beforeAll(async () => {
  gateway = await startLonelyGateway('gwdoc');
  for (const [name, url] of Object.entries({ public: gateway.publicUrl, admin: gateway.adminUrl })) {
    documents[name] = await (await fetch(`${url}/openapi.json`)).json();
  }
});

afterAll(async () => gateway?.stop());

const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

describe.each(['public', 'admin'])('the %s OpenAPI document', (name) => {
  it('when each operation is walked, then it lists every status the HTTP layer can answer on it, as problem+json', () => {
    const paths = Object.entries(documents[name].paths as Record<string, Record<string, any>>);
    expect(paths.length).toBeGreaterThan(5);
    let walked = 0;
    for (const [path, item] of paths) {
      for (const [method, operation] of Object.entries(item).filter(([m]) => httpMethods.includes(m))) {
        walked += 1;
        const where = `${method.toUpperCase()} ${path}`;
        const expected = edgeStatuses({ method: method.toUpperCase() as 'GET', url: path.replaceAll(/\{(\w+)\}/g, ':$1') });
        expect(expected, where).toContain(400);
        if (method !== 'get') expect(expected, where).toEqual(expect.arrayContaining([413, 415]));
        if (path.includes('{')) expect(expected, where).toContain(404);
        for (const status of expected) {
          const response = operation.responses?.[String(status)];
          expect(response, `${where} documents ${status}`).toBeDefined();
          expect(Object.keys(response.content), `${where} ${status}`).toEqual(['application/problem+json']);
          expect(response.content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
        }
        // Every documented error, not only the edge ones, is problem+json naming its codes.
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          if (Number(status) >= 400) {
            expect(Object.keys(response.content), `${where} ${status}`).toEqual(['application/problem+json']);
            expect(response.description, `${where} ${status}`).toMatch(/^Problem \(RFC 9457\); code [A-Z_]+/);
          }
        }
      }
    }
    expect(walked).toBeGreaterThan(5);
  });

  it('when the Problem schema is read, then it has the fields of §3', () => {
    const problem = documents[name].components.schemas.Problem;
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code', 'detail', 'requestId']));
  });
});
