/** A path parameter the route pattern guarantees; decoded by the router. */
export function param(ctx: { params: Record<string, string | undefined> }, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`route has no parameter "${name}"`);
  return value;
}
