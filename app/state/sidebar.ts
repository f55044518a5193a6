import { useCallback, useEffect, useRef, useState } from 'react';

import type { AppRouteName } from '../navigators/routes';
import type { Role } from '../services/api/types';
import { layout } from '../theme/colors';
import { t } from '../i18n';

/** Spec §2/§9: 240px expanded, 70px collapsed, breakpoint 768px (theme/layout). */
export const SIDEBAR_BREAKPOINT = layout.breakpoint;
export const SIDEBAR_EXPANDED_WIDTH = layout.sidebarExpanded;
export const SIDEBAR_COLLAPSED_WIDTH = layout.sidebarCollapsed;

export const isNarrowViewport = (viewportWidth: number) => viewportWidth < SIDEBAR_BREAKPOINT;
/** Collapsed by default below 768px, expanded from 768px up. */
export const defaultSidebarOpen = (viewportWidth: number) => !isNarrowViewport(viewportWidth);
/**
 * Wide screens: 240px expanded, a 70px rail (icons only) collapsed. Below
 * 768px the sidebar is a drawer over the content: 240px open, gone when
 * collapsed (a permanent rail would take a fifth of a 390px phone).
 */
export const sidebarWidth = (open: boolean, narrow = false) =>
  open ? SIDEBAR_EXPANDED_WIDTH : narrow ? 0 : SIDEBAR_COLLAPSED_WIDTH;
/** On narrow screens an open sidebar dims the content behind a backdrop. */
export const showSidebarBackdrop = (viewportWidth: number, open: boolean) => open && isNarrowViewport(viewportWidth);

export interface SidebarState {
  open: boolean;
  narrow: boolean;
  width: number;
  backdrop: boolean;
  toggle: () => void;
  collapse: () => void;
  /** Outside click (on the backdrop): collapses on narrow screens only. */
  outsideClick: () => void;
}

/** Sidebar state that follows the viewport: crossing the breakpoint resets it to the default for the new width. */
export function useSidebar(viewportWidth: number): SidebarState {
  const narrow = isNarrowViewport(viewportWidth);
  const [open, setOpen] = useState(() => defaultSidebarOpen(viewportWidth));
  const lastNarrow = useRef(narrow);
  useEffect(() => {
    if (lastNarrow.current !== narrow) {
      lastNarrow.current = narrow;
      setOpen(!narrow);
    }
  }, [narrow]);
  const toggle = useCallback(() => setOpen((o) => !o), []);
  const collapse = useCallback(() => setOpen(false), []);
  const outsideClick = useCallback(() => {
    if (lastNarrow.current) setOpen(false);
  }, []);
  return {
    open,
    narrow,
    width: sidebarWidth(open, narrow),
    backdrop: showSidebarBackdrop(viewportWidth, open),
    toggle,
    collapse,
    outsideClick,
  };
}

export interface SidebarLink {
  route: AppRouteName;
  label: string;
  icon: string;
  testID: string;
}

export interface SidebarGroup {
  title: string;
  /** Who sees the group's links; undefined: everyone signed in. */
  roles?: Role[];
  links: SidebarLink[];
}

/** Spec §2: the sidebar's groups and links. */
export const SIDEBAR_GROUPS = (): SidebarGroup[] =>
  [
  {
    title: t('Dashboard'),
    links: [{ route: 'Dashboard', label: t('Dashboard'), icon: 'home', testID: 'nav-dashboard' }],
  },
  {
    title: t('Customers'),
    roles: ['User'],
    links: [
      { route: 'AccountRegistration', label: t('Open New Account'), icon: 'credit-card', testID: 'nav-account-registration' },
      { route: 'TransferFunds', label: t('Send Money'), icon: 'send', testID: 'nav-transfer-funds' },
      { route: 'MoneyRequest', label: t('Request Money'), icon: 'download', testID: 'nav-money-request' },
      { route: 'Exchange', label: t('Exchange'), icon: 'repeat', testID: 'nav-exchange' },
    ],
  },
  {
    title: t('Admin'),
    roles: ['Admin'],
    links: [
      { route: 'Users', label: t('Users'), icon: 'users', testID: 'nav-users' },
      { route: 'Assign', label: t('Role Assign'), icon: 'user-check', testID: 'nav-assign' },
      { route: 'Logs', label: t('Audit Logs'), icon: 'file-text', testID: 'nav-logs' },
      { route: 'Approvals', label: t('Approvals'), icon: 'check-square', testID: 'nav-approvals' },
      { route: 'Rates', label: t('Rates'), icon: 'percent', testID: 'nav-rates' },
    ],
  },
];

/** The groups a role sees; groups with no visible link are hidden. */
export function visibleSidebarGroups(role: Role | null | undefined, groups: SidebarGroup[] = SIDEBAR_GROUPS()): SidebarGroup[] {
  return groups.filter((g) => !g.roles || (role ? g.roles.includes(role) : false)).filter((g) => g.links.length > 0);
}
