import { act, fireEvent, onWeb, pressEscape, renderHook, roleOf, screen, setWindowSize, styleOf } from './rtl';
import * as RN from 'react-native';
import { SafeAreaProvider } from 'react-native-safe-area-context';

import { Shell } from '../components/shell/Shell';
import type { User } from '../services/api/types';
import {
  defaultSidebarOpen,
  showSidebarBackdrop,
  sidebarWidth,
  useSidebar,
  visibleSidebarGroups,
} from '../state/sidebar';
import { toast } from '../state/toast';
import { renderWithProviders } from './testUtils';

describe('sidebar rules', () => {
  it('is collapsed below 768px and expanded from 768px', () => {
    expect(defaultSidebarOpen(390)).toBe(false);
    expect(defaultSidebarOpen(767)).toBe(false);
    expect(defaultSidebarOpen(768)).toBe(true);
    expect(defaultSidebarOpen(1280)).toBe(true);
  });

  it('is 240px expanded and a 70px rail collapsed; below 768px a drawer that takes no room when closed', () => {
    expect(sidebarWidth(true)).toBe(240);
    expect(sidebarWidth(false)).toBe(70);
    expect(sidebarWidth(true, true)).toBe(240);
    expect(sidebarWidth(false, true)).toBe(0);
  });

  it('shows a backdrop only when open on a narrow screen', () => {
    expect(showSidebarBackdrop(390, true)).toBe(true);
    expect(showSidebarBackdrop(390, false)).toBe(false);
    expect(showSidebarBackdrop(1024, true)).toBe(false);
  });

  it('follows the viewport when it crosses 768px', () => {
    const { result, rerender } = renderHook(({ w }: { w: number }) => useSidebar(w), { initialProps: { w: 1024 } });
    expect(result.current.open).toBe(true);
    expect(result.current.width).toBe(240);
    rerender({ w: 600 });
    expect(result.current.open).toBe(false);
    expect(result.current.width).toBe(0);
    act(() => result.current.toggle());
    expect(result.current).toMatchObject({ open: true, backdrop: true });
    // Resizing within the narrow range keeps the choice; an outside click collapses.
    rerender({ w: 500 });
    expect(result.current.open).toBe(true);
    act(() => result.current.outsideClick());
    expect(result.current).toMatchObject({ open: false, backdrop: false });
    rerender({ w: 900 });
    expect(result.current.open).toBe(true);
    // An outside click does nothing on a wide screen.
    act(() => result.current.outsideClick());
    expect(result.current.open).toBe(true);
  });

  it('groups links per role and hides empty groups', () => {
    const labels = (role: 'User' | 'Admin' | null) =>
      visibleSidebarGroups(role).map((g) => `${g.title}: ${g.links.map((l) => l.label).join(', ')}`);
    expect(labels('User')).toEqual(['Dashboard: Dashboard', 'Customers: Open New Account, Send Money, Request Money, Exchange']);
    expect(labels('Admin')).toEqual(['Dashboard: Dashboard', 'Admin: Users, Role Assign, Audit Logs, Approvals, Rates']);
    expect(labels(null)).toEqual(['Dashboard: Dashboard']);
    expect(visibleSidebarGroups('User', [{ title: 'Empty', links: [] }])).toEqual([]);
  });
});

const user: User = {
  id: 1,
  full_name: 'Alice Doe',
  email: 'alice@meridian.test',
  phone_number: '1',
  role: 'User',
  is_active: true,
  created_at: '2026-01-01T00:00:00Z',
};

/** Sets the window size seen by useWindowDimensions. */
const mockWidth = (width: number) => setWindowSize(width);

describe('Shell', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    act(() => toast.dismiss());
  });

  const renderShell = (role: 'User' | 'Admin' = 'User', onNavigate = jest.fn()) =>
    renderWithProviders(
      <Shell user={{ ...user, role }} activeRoute="Dashboard" onNavigate={onNavigate} onLogout={jest.fn()}>
        <RN.Text>Page content</RN.Text>
      </Shell>,
    );

  it('narrow: no rail; the toggle opens a drawer over the content with a backdrop, and an outside click closes it', () => {
    mockWidth(390);
    renderShell();
    expect(screen.getByText('Page content')).toBeTruthy();
    // Closed: no sidebar at all (no 70px rail on a phone).
    expect(screen.queryByTestId('sidebar')).toBeNull();
    expect(screen.queryByTestId('sidebar-backdrop')).toBeNull();
    expect(screen.queryByText('Send Money')).toBeNull();

    fireEvent.press(screen.getByLabelText('Toggle sidebar'));
    expect(styleOf(screen.getByTestId('sidebar'), 'width')).toBe(240);
    // A modal drawer over the content: screen readers stay inside it.
    expect(roleOf(screen.getByTestId('sidebar-drawer'))).toBe('dialog');
    expect(screen.getByText('Send Money')).toBeTruthy();
    if (!onWeb) {
      expect(screen.queryByText('Page content')).toBeNull(); // hidden from VoiceOver/TalkBack behind the drawer
      expect(screen.getByText('Page content', { includeHiddenElements: true })).toBeTruthy();
    }

    fireEvent.press(screen.getByTestId('sidebar-backdrop', { includeHiddenElements: true }));
    expect(screen.queryByTestId('sidebar')).toBeNull();
    expect(screen.queryByTestId('sidebar-backdrop', { includeHiddenElements: true })).toBeNull();
  });

  if (onWeb) it('narrow: Escape closes the drawer', () => {
    mockWidth(390);
    renderShell();
    fireEvent.press(screen.getByLabelText('Toggle sidebar'));
    expect(screen.getByTestId('sidebar')).toBeTruthy();
    pressEscape();
    expect(screen.queryByTestId('sidebar')).toBeNull();
  });

  if (!onWeb) it('narrow: the back button (Android) or VoiceOver escape closes the drawer; a link closes it too', () => {
    mockWidth(390);
    const onNavigate = jest.fn();
    renderShell('User', onNavigate);
    const back = jest.spyOn(RN.BackHandler, 'addEventListener');
    fireEvent.press(screen.getByLabelText('Toggle sidebar'));
    const handler = back.mock.calls.find(([event]) => event === 'hardwareBackPress')?.[1];
    expect(handler).toBeDefined();
    let handled = false;
    act(() => {
      handled = (handler as () => boolean | null | undefined)() === true;
    });
    expect(handled).toBe(true);
    expect(screen.queryByTestId('sidebar')).toBeNull();

    fireEvent.press(screen.getByLabelText('Toggle sidebar'));
    fireEvent(screen.getByTestId('sidebar-drawer'), 'accessibilityEscape');
    expect(screen.queryByTestId('sidebar')).toBeNull();

    fireEvent.press(screen.getByLabelText('Toggle sidebar'));
    fireEvent.press(screen.getByTestId('nav-transfer-funds'));
    expect(onNavigate).toHaveBeenCalledWith('TransferFunds');
    expect(screen.queryByTestId('sidebar')).toBeNull();
  });

  // (The web reads the insets from CSS env(safe-area-inset-*), which jsdom does not have.)
  if (!onWeb) it('keeps the safe area clear on all four sides (landscape notch)', () => {
    mockWidth(900);
    renderWithProviders(
      <SafeAreaProvider initialMetrics={{ frame: { x: 0, y: 0, width: 900, height: 400 }, insets: { top: 0, left: 47, right: 47, bottom: 21 } }}>
        <Shell user={user} activeRoute="Dashboard" onNavigate={jest.fn()} onLogout={jest.fn()}>
          <RN.Text>x</RN.Text>
        </Shell>
      </SafeAreaProvider>,
    );
    const shell = screen.getByTestId('shell');
    expect([styleOf(shell, 'paddingLeft'), styleOf(shell, 'paddingRight'), styleOf(shell, 'paddingBottom'), styleOf(shell, 'paddingTop')]).toEqual([47, 47, 21, 0]);
  });

  it('marks the current page in the sidebar for screen readers (selected on Android/iOS)', () => {
    mockWidth(1280);
    renderShell();
    expect(screen.getByTestId('nav-dashboard')).toBeSelected();
    expect(screen.getByTestId('nav-transfer-funds')).not.toBeSelected();
  });

  it('follows a window resize across 768px', () => {
    mockWidth(1280);
    renderShell();
    expect(styleOf(screen.getByTestId('sidebar'), 'width')).toBe(240);
    mockWidth(700);
    expect(screen.queryByTestId('sidebar')).toBeNull();
    mockWidth(1000);
    expect(styleOf(screen.getByTestId('sidebar'), 'width')).toBe(240);
  });

  it('wide: expanded without a backdrop; the toggle collapses it', () => {
    mockWidth(1280);
    renderShell('Admin');
    expect(styleOf(screen.getByTestId('sidebar'), 'width')).toBe(240);
    expect(screen.queryByTestId('sidebar-backdrop')).toBeNull();
    expect(screen.getByText('Users')).toBeTruthy();
    expect(screen.getByText('Role Assign')).toBeTruthy();
    expect(screen.queryByText('Send Money')).toBeNull();
    fireEvent.press(screen.getByLabelText('Toggle sidebar'));
    expect(styleOf(screen.getByTestId('sidebar'), 'width')).toBe(70);
    expect(screen.queryByTestId('sidebar-backdrop')).toBeNull();
  });

  it('links navigate; the header has the search box, the footer its links', () => {
    mockWidth(1280);
    const onNavigate = jest.fn();
    renderShell('User', onNavigate);
    fireEvent.press(screen.getByTestId('nav-transfer-funds'));
    expect(onNavigate).toHaveBeenCalledWith('TransferFunds');
    expect(screen.getByPlaceholderText('Search...')).toBeTruthy();
    expect(screen.getByText('Privacy Policy')).toBeTruthy();
    expect(screen.getByText('Terms of Service')).toBeTruthy();
    expect(screen.getByText(/2024.*Meridian/)).toBeTruthy();
  });

  it('profile menu: My Account with Password Reset and Logout', () => {
    mockWidth(1280);
    const onLogout = jest.fn();
    renderWithProviders(
      <Shell user={user} activeRoute="Dashboard" onNavigate={jest.fn()} onLogout={onLogout}>
        <RN.Text>x</RN.Text>
      </Shell>,
    );
    fireEvent.press(screen.getByLabelText(/open profile menu$/));
    expect(screen.getByText('My Account')).toBeTruthy();
    fireEvent.press(screen.getByText('Password Reset'));
    expect(screen.getByLabelText('Old Password')).toBeTruthy();
    expect(screen.getByLabelText('New Password')).toBeTruthy();
    fireEvent.press(screen.getByText('Cancel'));
    expect(screen.queryByLabelText('Old Password')).toBeNull();
    fireEvent.press(screen.getByLabelText(/open profile menu$/));
    fireEvent.press(screen.getByText('Logout'));
    expect(onLogout).toHaveBeenCalledTimes(1);
  });
});
