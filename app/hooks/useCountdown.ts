import { useEffect, useState } from 'react';

/**
 * Whole seconds left until `deadline` (ms since the epoch), counting down
 * once a second and reaching 0 exactly at the deadline; null without one.
 * Each tick is timed to the next whole second of what is left, so the
 * number shown is always ceil(left / 1000).
 */
export function useCountdown(deadline: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (deadline === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      const current = Date.now();
      setNow(current);
      const left = deadline - current;
      if (left <= 0) return;
      timer = setTimeout(tick, left % 1000 || 1000);
    };
    tick();
    return () => clearTimeout(timer);
  }, [deadline]);
  if (deadline === null) return null;
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}
