export { buildOpenApiDocument } from './document.js';
export { createOpenApiRoutes } from './routes.js';
export { operations, type Operation } from './operations.js';
