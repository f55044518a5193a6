import { layout, roleOf, screen } from './rtl';

import { DataTable } from '../components/DataTable';
import { renderElement } from './screenHarness';

const rows = [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bob' }];
const columns = [{ key: 'name', title: 'Name' }];

function narrow(testID: string) {
  layout(screen.getByTestId(testID), { width: 390, height: 200 });
}

it("stackedRole='list': at 390px the cards are a list of list items (no table without rows)", () => {
  renderElement(<DataTable testID="t" columns={columns} data={rows} keyExtractor={(r) => String(r.id)} stackedRole="list" />, { notifications: false });
  expect(roleOf(screen.getByTestId('t'))).toBe('table');
  narrow('t');
  expect(roleOf(screen.getByTestId('t'))).toBe('list');
  expect(screen.getAllByTestId('t-row').map(roleOf)).toEqual(['listitem', 'listitem']);
  expect(screen.getByText('Ada')).toBeTruthy();
});

it('by default a stacked table is a list of cards (no table role without rows)', () => {
  renderElement(<DataTable testID="t" columns={columns} data={rows} keyExtractor={(r) => String(r.id)} />, { notifications: false });
  expect(roleOf(screen.getByTestId('t'))).toBe('table');
  narrow('t');
  expect(roleOf(screen.getByTestId('t'))).toBe('list');
  expect(roleOf(screen.getAllByTestId('t-row')[0])).toBe('listitem');
});

it('stackedRole="table" keeps the table role when stacked', () => {
  renderElement(<DataTable testID="t" stackedRole="table" columns={columns} data={rows} keyExtractor={(r) => String(r.id)} />, { notifications: false });
  narrow('t');
  expect(roleOf(screen.getByTestId('t'))).toBe('table');
});

it('an empty stacked list has no list role (a list holds list items only: axe aria-required-children)', () => {
  renderElement(<DataTable testID="t" columns={columns} data={[]} keyExtractor={(r: { id: number }) => String(r.id)} emptyText="Nothing here" />, { notifications: false });
  narrow('t');
  expect(roleOf(screen.getByTestId('t'))).toBeUndefined();
  expect(screen.getByText('Nothing here')).toBeTruthy();
});
