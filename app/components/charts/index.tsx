import { lazy, Suspense } from 'react';

import { Loading } from '../Loading';
import type { AreaChartProps } from './AreaChart';

export type { AreaChartProps, ChartPoint } from './AreaChart';

const AreaChart = lazy(() => import('./AreaChart'));

/** The area chart, loaded on first render (its own chunk on the web). */
export function LazyAreaChart(props: AreaChartProps) {
  return (
    <Suspense fallback={<Loading />}>
      <AreaChart {...props} />
    </Suspense>
  );
}
