export { default as AreaChart } from './AreaChart';
export type { AreaChartProps, ChartPoint } from './AreaChart';
