/**
 * Keeps a label's values bounded: the first `max` distinct values are kept as they are, any
 * later one becomes `other`. Integration keys and script names are chosen by customers, so
 * without a cap a busy gateway could grow a series per typo.
 */
export function createLabelCap(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max) return 'other';
    seen.add(value);
    return value;
  };
}
