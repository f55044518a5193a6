import { File, Paths } from 'expo-file-system';
import * as Sharing from 'expo-sharing';

import { api, ApiError } from './api/client';
import type { DownloadRequest, DownloadResult } from './download.types';

/**
 * Android/iOS: expo-file-system downloads the file into the app's cache
 * (with the session's Authorization header), then the share sheet offers it
 * (save to Files, mail, print...). The downloader reports a failed answer
 * without its body, so on a failure the same GET goes through the API
 * client once more to raise its ApiError (the server's sentence, a 401 signs
 * out). The web: download.web.ts.
 */
export async function saveDownload({ path, query, filename, mimeType }: DownloadRequest): Promise<DownloadResult> {
  const target = new File(Paths.cache, filename);
  let file: File;
  try {
    file = await File.downloadFileAsync(api.url(path, query), target, {
      headers: { ...api.requestHeaders(), Accept: mimeType },
      idempotent: true,
    });
  } catch {
    await api.raw(path, query, { Accept: mimeType }); // throws the server's error, if it has one
    throw new ApiError(0, undefined, 'The download failed');
  }
  if (await Sharing.isAvailableAsync()) {
    await Sharing.shareAsync(file.uri, { mimeType, dialogTitle: filename, UTI: mimeType === 'application/pdf' ? 'com.adobe.pdf' : 'public.comma-separated-values-text' });
  }
  return { filename, uri: file.uri };
}
