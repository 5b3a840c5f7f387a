export { createEventBus, type EventBus, type GatewayEvent, type GatewayEventType } from './bus.js';
