package backup

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// CheckOptions configure Check.
type CheckOptions struct {
	// All verifies every base backup; otherwise only the newest (the one
	// a restore to "latest" uses), which reads it whole.
	All bool
	// MaxAge, when positive, is a problem threshold: the newest base
	// backup must have started within it.
	MaxAge time.Duration
	// Now is the time to measure ages against. Default time.Now().
	Now time.Time
}

// BackupCheck is the outcome for one base backup.
type BackupCheck struct {
	Name     string   `json:"name"`
	Files    int      `json:"files"` // files checked against the manifest
	Problems []string `json:"problems,omitempty"`
}

// CheckReport is what Check found. OK when Problems is empty.
type CheckReport struct {
	OK       bool          `json:"ok"`
	Problems []string      `json:"problems,omitempty"`
	Checked  []BackupCheck `json:"checked"`
	// RestorableFrom and RestorableTo bound the times a restore can reach
	// (the oldest backup's end, the newest archived segment's archiving).
	RestorableFrom time.Time  `json:"restorable_from,omitzero"`
	RestorableTo   time.Time  `json:"restorable_to,omitzero"`
	Inventory      *Inventory `json:"inventory"`
}

// Check verifies backup_dir without a database: each checked base backup's
// files against its manifest (sizes and checksums; the manifest against its
// own checksum; its WAL tar readable), the archive continuous from the
// oldest backup's first segment to the newest archived one, and the newest
// backup's age. It needs only the files, so it runs on a copy of the
// backups on another machine as well.
func Check(dir string, o CheckOptions) (*CheckReport, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	inv, err := List(dir)
	if err != nil {
		return nil, err
	}
	r := &CheckReport{Inventory: inv, Checked: []BackupCheck{}}
	problem := func(format string, args ...any) { r.Problems = append(r.Problems, fmt.Sprintf(format, args...)) }
	if len(inv.Backups) == 0 {
		problem("%s holds no base backup", dir)
		return r, nil
	}
	check := inv.Backups[len(inv.Backups)-1:]
	if o.All {
		check = inv.Backups
	}
	for _, b := range check {
		bc := verifyBackup(filepath.Join(dir, baseDir, b.Name))
		r.Checked = append(r.Checked, bc)
		for _, p := range bc.Problems {
			problem("base backup %s: %s", b.Name, p)
		}
	}
	newest := inv.Newest()
	if age := o.Now.Sub(newest.Started); o.MaxAge > 0 && age > o.MaxAge {
		problem("the newest base backup, %s, is %s old (more than %s)", newest.Name, age.Round(time.Minute), o.MaxAge)
	}
	missing := Gaps(dir, inv)
	if len(missing) > 0 {
		problem("the WAL archive misses %d segment(s) after the oldest base backup (first: %s): a restore cannot pass that point", len(missing), missing[0])
	}
	r.RestorableFrom = inv.Backups[0].Finished
	r.RestorableTo = newest.Finished
	if inv.WAL.NewestAt.After(r.RestorableTo) {
		r.RestorableTo = inv.WAL.NewestAt
	}
	r.OK = len(r.Problems) == 0
	return r, nil
}

// verifyBackup reads a base backup whole and compares it with its manifest.
func verifyBackup(path string) BackupCheck {
	bc := BackupCheck{Name: filepath.Base(path)}
	m, err := readManifest(filepath.Join(path, "backup_manifest"))
	if err != nil {
		bc.Problems = append(bc.Problems, err.Error())
		return bc
	}
	v, err := newVerifier(m)
	if err != nil {
		bc.Problems = append(bc.Problems, err.Error())
		return bc
	}
	err = walkTarGz(filepath.Join(path, "base.tar.gz"), func(h *tar.Header, r io.Reader) error {
		if h.Typeflag != tar.TypeReg {
			return nil
		}
		bc.Files++
		return v.file(h.Name, r, nil)
	})
	if err != nil {
		bc.Problems = append(bc.Problems, err.Error())
	}
	bc.Problems = append(bc.Problems, v.problems()...)
	walFiles := 0
	err = walkTarGz(filepath.Join(path, "pg_wal.tar.gz"), func(h *tar.Header, r io.Reader) error {
		if h.Typeflag == tar.TypeReg {
			walFiles++
			_, err := io.Copy(io.Discard, r)
			return err
		}
		return nil
	})
	if err != nil {
		bc.Problems = append(bc.Problems, err.Error())
	} else if walFiles == 0 {
		bc.Problems = append(bc.Problems, "pg_wal.tar.gz holds no WAL segment")
	}
	if _, err := os.Stat(filepath.Join(path, metaFile)); err != nil {
		bc.Problems = append(bc.Problems, err.Error())
	}
	sort.Strings(bc.Problems)
	return bc
}

// gaps lists the segments missing from the archive between the first
// segment base needs and the newest archived segment, whatever their
// timeline (a new timeline continues the numbering where it branched).
func gaps(walDir string, base Backup) []string {
	first, ok := parseSegment(base.StartWAL, base.SegmentSize)
	if !ok {
		return []string{base.StartWAL + " (unreadable)"}
	}
	files, err := os.ReadDir(walDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing archived yet: the backup holds the WAL it needs
	}
	if err != nil {
		return []string{walDir + " (unreadable: " + err.Error() + ")"}
	}
	have := map[uint64]bool{}
	var newest uint64
	var tli uint32 = first.tli
	for _, f := range files {
		s, ok := parseSegment(f.Name(), base.SegmentSize)
		if !ok {
			continue
		}
		have[s.no] = true
		if s.no > newest {
			newest, tli = s.no, s.tli
		}
	}
	var missing []string
	perXLogID := uint64(0x100000000) / uint64(base.SegmentSize)
	for no := first.no; no < newest; no++ {
		if !have[no] {
			missing = append(missing, fmt.Sprintf("%08X%08X%08X", tli, no/perXLogID, no%perXLogID))
		}
	}
	return missing
}

// Gaps lists the WAL segments missing from the archive of backup_dir after
// its oldest base backup (none when it holds no backup).
func Gaps(dir string, inv *Inventory) []string {
	if len(inv.Backups) == 0 {
		return nil
	}
	return gaps(WALDir(dir), inv.Backups[0])
}
