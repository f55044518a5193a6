package backup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Backup is one base backup in backup_dir/base/<Name>, as its
// meridian-backup.json describes it.
type Backup struct {
	Name string `json:"name"`
	// Started is when pg_basebackup was started; Finished when it had
	// written everything. A restore to a time T uses the newest backup that
	// finished before T (its WAL replay must reach a consistent state first).
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// StartLSN and EndLSN bound the WAL the backup needs to be consistent
	// (from its manifest), on Timeline. StartWAL is the first segment file.
	StartLSN string `json:"start_lsn"`
	EndLSN   string `json:"end_lsn"`
	Timeline int    `json:"timeline"`
	StartWAL string `json:"start_wal"`
	// SegmentSize is the cluster's wal_segment_size in bytes.
	SegmentSize int64 `json:"wal_segment_size"`
	// Bytes is the backup's size on disk (compressed); DatabaseBytes the
	// size of the files it holds.
	Bytes         int64  `json:"bytes"`
	DatabaseBytes int64  `json:"database_bytes"`
	PGVersion     string `json:"postgresql_version"`
	SystemID      string `json:"system_identifier"`
	// JWTSecret: the backup holds the data dir's generated jwt_secret, which
	// sealed the two-factor secrets (without it they cannot be read).
	JWTSecret bool `json:"jwt_secret"`
	// Anchors is how many signed checkpoints of the audit chain's head the
	// backup holds (in anchors/), the newest written as it started.
	Anchors int `json:"anchors"`
}

// WAL summarizes the archive in backup_dir/wal.
type WAL struct {
	Segments int   `json:"segments"`
	Bytes    int64 `json:"bytes"`
	// Oldest and Newest are segment file names; NewestAt when the newest
	// was archived.
	Oldest   string    `json:"oldest,omitempty"`
	Newest   string    `json:"newest,omitempty"`
	NewestAt time.Time `json:"newest_at,omitzero"`
	// Timelines are the timelines with segments or a history file.
	Timelines []int `json:"timelines"`
}

// Inventory is what backup_dir holds.
type Inventory struct {
	Dir     string   `json:"backup_dir"`
	Backups []Backup `json:"backups"` // oldest first
	WAL     WAL      `json:"wal"`
	// Partial are backups that never finished (a crash during one); the
	// next backup removes them.
	Partial []string `json:"partial,omitempty"`
}

// Newest returns the newest backup, or nil.
func (inv *Inventory) Newest() *Backup {
	if len(inv.Backups) == 0 {
		return nil
	}
	return &inv.Backups[len(inv.Backups)-1]
}

const (
	walDir     = "wal"
	baseDir    = "base"
	metaFile   = "meridian-backup.json"
	partialExt = ".partial"
	secretFile = "jwt_secret"
	anchorsDir = "anchors"
)

// WALDir is where the archive_command of a cluster backing up into dir
// copies its WAL.
func WALDir(dir string) string { return filepath.Join(dir, walDir) }

// segmentName matches a WAL segment file: timeline, then the segment
// number in two halves, 8 hex digits each.
var segmentName = regexp.MustCompile(`^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$`)

// historyName matches a timeline history file.
var historyName = regexp.MustCompile(`^([0-9A-F]{8})\.history$`)

// segment is a WAL segment file's place: its timeline and its number
// counted from the start of the WAL.
type segment struct {
	tli uint32
	no  uint64
}

func parseSegment(name string, segSize int64) (segment, bool) {
	m := segmentName.FindStringSubmatch(name)
	if m == nil || segSize <= 0 {
		return segment{}, false
	}
	tli, _ := strconv.ParseUint(m[1], 16, 32)
	hi, _ := strconv.ParseUint(m[2], 16, 32)
	lo, _ := strconv.ParseUint(m[3], 16, 32)
	perXLogID := uint64(0x100000000) / uint64(segSize)
	return segment{tli: uint32(tli), no: hi*perXLogID + lo}, true
}

// segmentFile names the segment holding lsn on timeline tli.
func segmentFile(tli int, lsn uint64, segSize int64) string {
	no := lsn / uint64(segSize)
	perXLogID := uint64(0x100000000) / uint64(segSize)
	return fmt.Sprintf("%08X%08X%08X", tli, no/perXLogID, no%perXLogID)
}

// List reads backup_dir: its base backups (oldest first) and a summary of
// its WAL archive. A missing dir is an empty inventory.
func List(dir string) (*Inventory, error) {
	inv := &Inventory{Dir: dir, Backups: []Backup{}, WAL: WAL{Timelines: []int{}}}
	entries, err := os.ReadDir(filepath.Join(dir, baseDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if strings.HasSuffix(e.Name(), partialExt) {
			inv.Partial = append(inv.Partial, e.Name())
			continue
		}
		b, err := readMeta(filepath.Join(dir, baseDir, e.Name()))
		if err != nil {
			return nil, err
		}
		inv.Backups = append(inv.Backups, *b)
	}
	sort.Slice(inv.Backups, func(i, j int) bool { return inv.Backups[i].Started.Before(inv.Backups[j].Started) })

	files, err := os.ReadDir(WALDir(dir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	tls := map[int]bool{}
	for _, f := range files {
		name := f.Name()
		if m := historyName.FindStringSubmatch(name); m != nil {
			tl, _ := strconv.ParseInt(m[1], 16, 32)
			tls[int(tl)] = true
			continue
		}
		if !segmentName.MatchString(name) {
			continue
		}
		info, err := f.Info()
		if err != nil {
			continue // pruned meanwhile
		}
		inv.WAL.Segments++
		inv.WAL.Bytes += info.Size()
		tl, _ := strconv.ParseInt(name[:8], 16, 32)
		tls[int(tl)] = true
		if inv.WAL.Oldest == "" || name[8:] < inv.WAL.Oldest[8:] || (name[8:] == inv.WAL.Oldest[8:] && name < inv.WAL.Oldest) {
			inv.WAL.Oldest = name
		}
		if inv.WAL.Newest == "" || name[8:] > inv.WAL.Newest[8:] || (name[8:] == inv.WAL.Newest[8:] && name > inv.WAL.Newest) {
			inv.WAL.Newest = name
			inv.WAL.NewestAt = info.ModTime().UTC()
		}
	}
	for tl := range tls {
		inv.WAL.Timelines = append(inv.WAL.Timelines, tl)
	}
	sort.Ints(inv.WAL.Timelines)
	return inv, nil
}

func readMeta(backupDir string) (*Backup, error) {
	data, err := os.ReadFile(filepath.Join(backupDir, metaFile))
	if err != nil {
		return nil, fmt.Errorf("base backup %s: %w", filepath.Base(backupDir), err)
	}
	var b Backup
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("base backup %s: %s is not readable: %w", filepath.Base(backupDir), metaFile, err)
	}
	if b.Name != filepath.Base(backupDir) {
		return nil, fmt.Errorf("base backup %s: %s names %q", filepath.Base(backupDir), metaFile, b.Name)
	}
	return &b, nil
}
