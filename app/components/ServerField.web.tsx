import type { ServerFieldControl } from './ServerField';

const always = async () => true;

/** The web build talks to the origin that served it: no Server field. */
export function useServerField(): ServerFieldControl {
  return { field: null, ensure: always, checking: false };
}
