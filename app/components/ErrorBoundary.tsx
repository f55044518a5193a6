import { Component, type ErrorInfo, type ReactNode } from 'react';

import { ErrorView } from './ErrorView';
import { t } from '../i18n';

interface Props {
  children: ReactNode;
  /** Changing it clears a caught error (e.g. the route key, so navigating away recovers). */
  resetKey?: unknown;
  onHome?: () => void;
}

interface State {
  error: unknown;
}

function describe(error: unknown): { status?: number; statusText?: string; message?: string } {
  if (error && typeof error === 'object') {
    const e = error as { status?: unknown; statusText?: unknown; message?: unknown };
    const status = typeof e.status === 'number' && e.status > 0 ? e.status : undefined;
    const statusText = typeof e.statusText === 'string' ? e.statusText : undefined;
    const message = typeof e.message === 'string' ? e.message : undefined;
    return { status, statusText, message };
  }
  return { message: typeof error === 'string' ? error : undefined };
}

/** Catches render errors below it and shows the 'Unexpected Application Error!' page. */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error ?? new Error(t('Unknown error')) };
  }

  componentDidUpdate(prev: Props) {
    if (this.state.error && prev.resetKey !== this.props.resetKey) this.setState({ error: null });
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    if (process.env.NODE_ENV !== 'test') console.error('Render error', error, info.componentStack);
  }

  render() {
    if (this.state.error) {
      const d = describe(this.state.error);
      return <ErrorView {...d} onRetry={() => this.setState({ error: null })} onHome={this.props.onHome} />;
    }
    return this.props.children;
  }
}
