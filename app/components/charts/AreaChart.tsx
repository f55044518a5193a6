import { useState } from 'react';
import { View, type LayoutChangeEvent } from 'react-native';
import { VictoryArea, VictoryAxis, VictoryChart } from 'victory-native';

import { fontSize, useTheme } from '../../theme';

export interface ChartPoint {
  name: string;
  total: number;
}

export interface AreaChartProps {
  data: ChartPoint[];
  /** Spec: the dashboards' charts are 300 high. */
  height?: number;
  testID?: string;
  /** Formats the y axis ticks (e.g. money). */
  formatY?: (value: number) => string;
  /** What the chart shows, for screen readers (the SVG's title). */
  title?: string;
}

/**
 * An area chart (x = name, y = total) with victory-native + react-native-svg,
 * on the web and on Android/iOS. Heavy (victory): only the Dashboard chunk
 * imports it, so it stays out of the initial bundle.
 */
export default function AreaChart({ data, height = 300, testID, formatY, title = 'Chart' }: AreaChartProps) {
  const { colors } = useTheme();
  const [width, setWidth] = useState(0);
  const onLayout = (e: LayoutChangeEvent) => setWidth(Math.floor(e.nativeEvent.layout.width));
  const axisStyle = {
    axis: { stroke: colors.border },
    tickLabels: { fill: colors.textMuted, fontSize: fontSize.caption },
    grid: { stroke: 'transparent' },
  };
  return (
    <View testID={testID} style={{ height, width: '100%' }} onLayout={onLayout}>
      {width > 0 ? (
        <VictoryChart title={title} desc={data.map((p) => `${p.name}: ${formatY ? formatY(p.total) : p.total}`).join(', ')} width={width} height={height} padding={{ top: 16, bottom: 36, left: 56, right: 16 }} domainPadding={{ y: 8 }}>
          <VictoryAxis style={axisStyle} />
          <VictoryAxis dependentAxis style={axisStyle} tickFormat={(t: number) => (formatY ? formatY(t) : String(t))} />
          <VictoryArea
            data={data}
            x="name"
            y="total"
            interpolation="monotoneX"
            style={{ data: { fill: colors.primaryMuted, stroke: colors.primary, strokeWidth: 2, fillOpacity: 0.7 } }}
          />
        </VictoryChart>
      ) : null}
    </View>
  );
}
