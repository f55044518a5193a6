import { Text } from 'react-native';

import { renderElement } from '../__tests__/screenHarness';
import { onWeb, roleOf, screen, within } from '../__tests__/rtl';
import { DataTable } from './DataTable';

const rows = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, name: `Row ${i + 1}` }));
const columns = [{ key: 'name', title: 'Name' }];

describe('a long table ("Load more")', () => {
  it(onWeb ? 'stays a real table in the page on the web, the footer after it' : 'is virtualized on Android/iOS: only the first rows exist, the footer scrolls with them', () => {
    renderElement(
      <DataTable
        testID="t"
        columns={columns}
        data={rows}
        keyExtractor={(r) => String(r.id)}
        virtualized
        footer={<Text testID="t-footer">Load more</Text>}
      />,
      { notifications: false },
    );
    const table = screen.getByTestId('t');
    expect(roleOf(table)).toBe('table');
    const rendered = screen.getAllByTestId('t-row').length;
    if (onWeb) {
      expect(rendered).toBe(300);
      expect(within(table).queryByTestId('t-footer')).toBeNull();
      expect(screen.getByTestId('t-footer')).toBeTruthy();
    } else {
      expect(rendered).toBeGreaterThan(0);
      expect(rendered).toBeLessThan(60);
      expect(within(table).getByTestId('t-footer')).toBeTruthy();
    }
    expect(screen.getByText('Row 1')).toBeTruthy();
  });

  it('an empty long table shows its empty text and the footer', () => {
    renderElement(
      <DataTable testID="t" columns={columns} data={[]} keyExtractor={(r: { id: number }) => String(r.id)} virtualized emptyText="Nothing yet" footer={<Text>after</Text>} />,
      { notifications: false },
    );
    expect(screen.getByText('Nothing yet')).toBeTruthy();
    expect(screen.getByText('after')).toBeTruthy();
  });
});

describe('in the shell', () => {
  const user = { id: 1, full_name: 'Ada Admin', email: 'a@m.test', phone_number: '1', role: 'Admin' as const, is_active: true, created_at: '2026-01-01T00:00:00Z' };
  it(onWeb ? 'the web scrolls the page; the footer follows the table' : 'a list page scrolls itself; the shell footer ends the list', () => {
    const { Shell } = require('./shell/Shell') as typeof import('./shell/Shell');
    renderElement(
      <Shell pageScrollsItself user={user} activeRoute="Logs" onNavigate={jest.fn()} onLogout={jest.fn()}>
        <DataTable testID="t" columns={columns} data={rows} keyExtractor={(r) => String(r.id)} virtualized />
      </Shell>,
      { notifications: true },
    );
    const inTable = within(screen.getByTestId('t')).queryByText('Privacy Policy');
    if (onWeb) expect(inTable).toBeNull();
    else expect(inTable).toBeTruthy();
    expect(screen.getAllByText('Privacy Policy')).toHaveLength(1);
  });
});
