export { buildOpenApiDocument } from './document.js';
export { createOpenApiRoutes } from './routes.js';
