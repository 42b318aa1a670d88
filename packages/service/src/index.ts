export { defineService, grpcBinding, type GrpcBinding, type HttpListener, type ServiceContext, type ServiceDefinition, type Started, type Stoppable } from './define.js';
export { serviceEnv, runtimeEnv, grpcAddress, testModeGrpcAddress, migrateModes, type BaseConfig, type MigrateMode } from './env.js';
export { BootAborted } from './boot.js';
export { startService, type RunningService } from './start.js';
export { runService } from './run.js';
export { grpcTlsFiles } from './tls.js';
export { runRetention, startRetention, type RetentionLimits, type RetentionRule } from './retention.js';
