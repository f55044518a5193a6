package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// manifest is what this package reads of PostgreSQL's backup_manifest
// (written by pg_basebackup beside the tar files): every file of the base
// backup with its size and checksum, and the WAL the backup needs.
type manifest struct {
	Version   int            `json:"PostgreSQL-Backup-Manifest-Version"`
	Files     []manifestFile `json:"Files"`
	WALRanges []walRange     `json:"WAL-Ranges"`
	Checksum  string         `json:"Manifest-Checksum"`
}

type manifestFile struct {
	Path        string `json:"Path"`
	EncodedPath string `json:"Encoded-Path"` // hex, for names that are not UTF-8
	Size        int64  `json:"Size"`
	Algorithm   string `json:"Checksum-Algorithm"`
	Checksum    string `json:"Checksum"`
}

type walRange struct {
	Timeline int    `json:"Timeline"`
	StartLSN string `json:"Start-LSN"`
	EndLSN   string `json:"End-LSN"`
}

// readManifest reads and parses path, and checks its own checksum: the
// SHA-256 of every byte before the "Manifest-Checksum" line.
func readManifest(path string) (*manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s is not a backup manifest: %w", path, err)
	}
	i := bytes.LastIndex(data, []byte("\"Manifest-Checksum\""))
	if i < 0 || m.Checksum == "" {
		return nil, fmt.Errorf("%s has no Manifest-Checksum", path)
	}
	if sum := sha256.Sum256(data[:i]); hex.EncodeToString(sum[:]) != strings.ToLower(m.Checksum) {
		return nil, fmt.Errorf("%s does not match its own checksum: it was changed or cut", path)
	}
	if len(m.WALRanges) == 0 {
		return nil, fmt.Errorf("%s names no WAL range", path)
	}
	return &m, nil
}

// path is the file's name inside the backup.
func (f manifestFile) path() (string, error) {
	if f.EncodedPath == "" {
		return f.Path, nil
	}
	b, err := hex.DecodeString(f.EncodedPath)
	return string(b), err
}

// newHash returns the hash the manifest's algorithm names, and how to
// print it the way the manifest does.
func newHash(algorithm string) (hash.Hash, func([]byte) string, error) {
	switch strings.ToUpper(algorithm) {
	case "CRC32C":
		// PostgreSQL writes the CRC's four bytes in memory order (little-endian).
		return crc32.New(crc32.MakeTable(crc32.Castagnoli)), func(sum []byte) string {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], binary.BigEndian.Uint32(sum))
			return hex.EncodeToString(b[:])
		}, nil
	case "SHA224", "SHA256", "SHA384", "SHA512":
		if strings.ToUpper(algorithm) != "SHA256" {
			return nil, nil, fmt.Errorf("checksum algorithm %s is not supported here (pg_basebackup's default is CRC32C)", algorithm)
		}
		return sha256.New(), hex.EncodeToString, nil
	case "", "NONE":
		return nil, nil, nil
	}
	return nil, nil, fmt.Errorf("unknown checksum algorithm %q", algorithm)
}

// verifier compares the files of a base backup's tar with its manifest.
type verifier struct {
	want map[string]manifestFile
	seen map[string]bool
	bad  []string
}

func newVerifier(m *manifest) (*verifier, error) {
	v := &verifier{want: map[string]manifestFile{}, seen: map[string]bool{}}
	for _, f := range m.Files {
		p, err := f.path()
		if err != nil {
			return nil, fmt.Errorf("manifest: bad encoded path %q", f.EncodedPath)
		}
		v.want[p] = f
	}
	return v, nil
}

// file checks one regular file of the tar as it is read through r; w (may
// be nil) receives the bytes (restore writes them out as it verifies).
func (v *verifier) file(name string, r io.Reader, w io.Writer) error {
	f, ok := v.want[name]
	if !ok {
		if w != nil {
			_, err := io.Copy(w, r)
			if err != nil {
				return err
			}
		}
		v.bad = append(v.bad, name+": in the backup but not in its manifest")
		return nil
	}
	v.seen[name] = true
	h, show, err := newHash(f.Algorithm)
	if err != nil {
		return err
	}
	dst := io.Discard
	if w != nil {
		dst = w
	}
	if h != nil {
		dst = io.MultiWriter(dst, h)
	}
	n, err := io.Copy(dst, r)
	if err != nil {
		return err
	}
	switch {
	case n != f.Size:
		v.bad = append(v.bad, fmt.Sprintf("%s: %d bytes, the manifest says %d", name, n, f.Size))
	case h != nil && show(h.Sum(nil)) != strings.ToLower(f.Checksum):
		v.bad = append(v.bad, fmt.Sprintf("%s: checksum %s, the manifest says %s", name, show(h.Sum(nil)), f.Checksum))
	}
	return nil
}

// problems lists what differs, missing files included.
func (v *verifier) problems() []string {
	out := append([]string(nil), v.bad...)
	for name := range v.want {
		if !v.seen[name] {
			out = append(out, name+": in the manifest but not in the backup")
		}
	}
	return out
}

// walkTarGz calls fn for every entry of a gzipped tar file.
func walkTarGz(path string, fn func(h *tar.Header, r io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		if err := fn(h, tr); err != nil {
			return err
		}
	}
}

// parseLSN reads an LSN written as "16/B374D848".
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("bad LSN %q", s)
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad LSN %q", s)
	}
	return h<<32 | l, nil
}
