import { Card, Screen, Text } from '../components';

/** A page that is still to be built: its title and a note. */
export function Placeholder({ title, testID, note }: { title: string; testID: string; note?: string }) {
  return (
    <Screen title={title} testID={testID}>
      <Card>
        <Text variant="muted">{note ?? 'This page is coming soon.'}</Text>
      </Card>
    </Screen>
  );
}
