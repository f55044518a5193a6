/** A file the API answers (a statement), to be saved by the platform (download.ts / download.web.ts). */
export interface DownloadRequest {
  /** API path, e.g. '/user/statements'. */
  path: string;
  query: Record<string, string>;
  /** The name to save under when the answer does not name the file. */
  filename: string;
  mimeType: string;
}

export interface DownloadResult {
  /** The name the file was saved (or offered) under. */
  filename: string;
  /** Android/iOS: where the file was written. */
  uri?: string;
}
