import { api } from './api/client';
import type { DownloadRequest, DownloadResult } from './download.types';
import { filenameFromDisposition } from '../utils/contentDisposition';

/**
 * The web: the file is fetched with the session's Authorization header (a
 * plain link could not send it), kept as a Blob, and handed to the browser
 * as a download through an object URL and an <a download>. An error answer
 * throws the API's ApiError (the server's sentence). Android/iOS: download.ts.
 */
export async function saveDownload({ path, query, filename, mimeType }: DownloadRequest): Promise<DownloadResult> {
  const response = await api.raw(path, query, { Accept: mimeType });
  const blob = await response.blob();
  const name = filenameFromDisposition(response.headers?.get('Content-Disposition')) ?? filename;
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.rel = 'noopener';
    link.style.display = 'none';
    document.body.appendChild(link);
    link.click();
    link.remove();
  } finally {
    // The click has started the download; the URL is no longer needed once it has been read.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  return { filename: name };
}
