/**
 * Every process `npm start` runs, in start order, with the ports it listens
 * on. Adding a service is one entry here (and its folder under services/).
 */
export interface Ports {
  public: number;
  admin: number;
  partnersGrpc: number;
  partnersHealth: number;
  catalogGrpc: number;
  catalogHealth: number;
  mailerHealth: number;
}

export const defaultPorts: Ports = {
  public: 8080,
  admin: 8081,
  partnersGrpc: 50051,
  partnersHealth: 9091,
  catalogGrpc: 50052,
  catalogHealth: 9092,
  mailerHealth: 9093,
};

export interface ServiceSpec {
  name: string;
  env: Record<string, string>;
  /** Answers 200 once the service can take traffic. */
  readyUrl: string;
}

export function serviceSpecs(ports: Ports): ServiceSpec[] {
  const local = (port: number) => `127.0.0.1:${port}`;
  return [
    { name: 'partners', env: { GRPC_PORT: `${ports.partnersGrpc}`, HEALTH_PORT: `${ports.partnersHealth}` }, readyUrl: `http://${local(ports.partnersHealth)}/readyz` },
    { name: 'catalog', env: { GRPC_PORT: `${ports.catalogGrpc}`, HEALTH_PORT: `${ports.catalogHealth}` }, readyUrl: `http://${local(ports.catalogHealth)}/readyz` },
    { name: 'mailer', env: { HEALTH_PORT: `${ports.mailerHealth}` }, readyUrl: `http://${local(ports.mailerHealth)}/readyz` },
    {
      name: 'gateway',
      env: {
        PORT: `${ports.public}`,
        ADMIN_PORT: `${ports.admin}`,
        PARTNERS_ADDR: local(ports.partnersGrpc),
        CATALOG_ADDR: local(ports.catalogGrpc),
      },
      readyUrl: `http://${local(ports.public)}/readyz`,
    },
  ];
}
