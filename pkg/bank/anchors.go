package bank

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"

	"meridian/pkg/auth"
	"meridian/pkg/errs"
)

// Anchors: the audit chain checked against what the database cannot
// change (contract §5, issue 20).
//
// A chain kept in the database proves nothing against the database's
// owner: it can change a row, compute every link after it again with
// audit_digest and move the sealer's head, or cut the newest rows and step
// the head back, and the chain verifies. So serve writes the chain's head
// (its seq and hash) to files outside the database every anchor_interval,
// signed (HMAC-SHA256) with a key the database does not hold: anchor_key,
// else one derived from jwt_secret. `audit-log verify --anchors DIR` then
// checks that the chain still extends every checkpoint: the link at each
// checkpoint's seq is there, with the hash the checkpoint holds. Changing
// any row up to a checkpoint changes that link's hash (each hash covers the
// one before it); removing rows up to it removes the link.

// Anchor is one checkpoint of the audit chain's head.
type Anchor struct {
	Seq       int64     `json:"seq"`
	Hash      string    `json:"hash"` // the link's SHA-256, hex
	AuditID   int64     `json:"audit_id"`
	WrittenAt time.Time `json:"written_at"`
	// Signature is HMAC-SHA256 over the fields above with the anchor key, hex.
	Signature string `json:"signature"`
	// File is where it was read from (not written).
	File string `json:"-"`
}

// anchorKey is the key checkpoints are signed with: derived from
// Settings.AnchorKey (config anchor_key) when set, else from jwt_secret.
func anchorKey(setting string, tokens *auth.Tokens) []byte {
	if setting != "" {
		return auth.DeriveKeyFrom([]byte(setting), "audit anchors")
	}
	return tokens.DeriveKey("audit anchors")
}

// mac is the checkpoint's signature under key.
func (a Anchor) mac(key []byte) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "meridian audit anchor v1\n%d\n%s\n%d\n%s\n", a.Seq, a.Hash, a.AuditID, a.WrittenAt.UTC().Format(time.RFC3339Nano))
	return hex.EncodeToString(m.Sum(nil))
}

// anchorFile names a checkpoint's file: ordered by seq, then by time.
func anchorFile(a Anchor) string {
	return fmt.Sprintf("anchor-%015d-%s.json", a.Seq, a.WrittenAt.UTC().Format("20060102T150405.000000000Z"))
}

// AuditHead is the audit chain's last link (Seq 0: the chain is empty).
type AuditHead struct {
	Seq     int64  `json:"seq" db:"seq"`
	Hash    string `json:"hash" db:"hash"` // hex
	AuditID int64  `json:"audit_id" db:"audit_id"`
}

// auditHead reads the chain's last link.
func (s *Service) auditHead(ctx context.Context) (AuditHead, error) {
	var h AuditHead
	err := s.db.GetContext(ctx, &h, `SELECT seq, encode(hash, 'hex') AS hash, audit_id FROM audit_chain ORDER BY seq DESC LIMIT 1`)
	if notFound(err) {
		return AuditHead{}, nil
	}
	return h, errs.Wrap(err, "audit head")
}

// WriteAnchor seals, then writes the chain's head into dir, signed with
// the anchor key, unless the newest checkpoint there already holds this head (an idle
// bank writes no file). The file appears whole or not at all. It returns
// the checkpoint and whether it wrote one.
//
// Returns only internal errors (the database or the disk failed).
func (s *Service) WriteAnchor(ctx context.Context, dir string) (Anchor, bool, error) {
	if _, err := s.Seal(ctx); err != nil {
		return Anchor{}, false, err
	}
	head, err := s.auditHead(ctx)
	if err != nil || head.Seq == 0 {
		return Anchor{}, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Anchor{}, false, errs.Wrap(err, "anchor dir")
	}
	if last, err := newestAnchorName(dir); err != nil {
		return Anchor{}, false, err
	} else if strings.HasPrefix(last, fmt.Sprintf("anchor-%015d-", head.Seq)) {
		return Anchor{}, false, nil
	}
	a := Anchor{Seq: head.Seq, Hash: head.Hash, AuditID: head.AuditID, WrittenAt: s.now().UTC()}
	a.Signature = a.mac(s.anchorKey)
	body, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return Anchor{}, false, errs.Wrap(err, "anchor")
	}
	a.File = filepath.Join(dir, anchorFile(a))
	if err := writeFileAtomic(a.File, append(body, '\n')); err != nil {
		return Anchor{}, false, errs.Wrap(err, "write anchor")
	}
	return a, true, nil
}

// newestAnchorName is the name of the newest checkpoint file in dir ("": none).
func newestAnchorName(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "anchor-*.json"))
	if err != nil || len(names) == 0 {
		return "", err
	}
	sort.Strings(names)
	return filepath.Base(names[len(names)-1]), nil
}

// writeFileAtomic writes body to path through a temporary file in the same
// directory, synced, then renamed over path, then the directory synced.
func writeFileAtomic(path string, body []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".anchor-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// RunAnchors writes a checkpoint of the audit chain's head into dir now and
// every interval until ctx ends (serve runs it). Failures are logged and
// tried again at the next interval.
func (s *Service) RunAnchors(ctx context.Context, interval time.Duration, dir string, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if a, wrote, err := s.WriteAnchor(ctx, dir); err != nil && ctx.Err() == nil {
			log.Error("writing a checkpoint of the audit chain failed; trying again at the next interval", "dir", dir, "err", err)
		} else if wrote {
			log.Debug("checkpoint of the audit chain written", "seq", a.Seq, "file", a.File)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ReadAnchors reads every checkpoint in dir, oldest first, and checks each
// one's signature with the anchor key.
//
// Returns an error naming the first file that is not a checkpoint or whose
// signature does not verify (a forged or damaged checkpoint, or another
// key), or that dir holds none.
func (s *Service) ReadAnchors(dir string) ([]Anchor, error) {
	names, err := filepath.Glob(filepath.Join(dir, "anchor-*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no checkpoint (anchor-*.json) in %s", dir)
	}
	sort.Strings(names)
	out := make([]Anchor, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var a Anchor
		if err := json.Unmarshal(b, &a); err != nil || a.Seq <= 0 || len(a.Hash) != 64 {
			return nil, fmt.Errorf("%s is not a checkpoint of the audit chain", n)
		}
		if !hmac.Equal([]byte(a.mac(s.anchorKey)), []byte(a.Signature)) {
			return nil, fmt.Errorf("the signature of %s does not verify: it was not written with this anchor key (anchor_key, else jwt_secret), or it was changed", n)
		}
		a.File = n
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// AnchorReport is what CheckAnchors found.
type AnchorReport struct {
	OK bool `json:"ok"`
	// Checked is how many checkpoints the chain extends.
	Checked int `json:"checked"`
	// Anchor is the first checkpoint the chain does not extend (nil when OK).
	Anchor *Anchor `json:"anchor,omitempty"`
	// Problem: AnchorRewritten or AnchorTruncated.
	Problem string `json:"problem,omitempty"`
}

// What CheckAnchors found wrong with a checkpoint.
const (
	AnchorRewritten = "rewritten" // the link at its seq has another hash
	AnchorTruncated = "truncated" // the chain has no link at its seq
)

// Sentence describes a report for a person.
func (r AnchorReport) Sentence() string {
	if r.OK {
		return "The audit chain extends all " + strconv.Itoa(r.Checked) + " checkpoints."
	}
	a := r.Anchor
	when := a.WrittenAt.UTC().Format(time.RFC3339)
	if r.Problem == AnchorTruncated {
		return fmt.Sprintf("The audit chain was cut: the checkpoint of %s (%s) holds link %d (audit row %d), which the database no longer has.",
			when, filepath.Base(a.File), a.Seq, a.AuditID)
	}
	return fmt.Sprintf("The audit chain was rewritten: link %d (audit row %d) differs from the checkpoint of %s (%s), so a row up to it was changed or removed and the links after it computed again.",
		a.Seq, a.AuditID, when, filepath.Base(a.File))
}

// CheckAnchors checks that the audit chain in the database extends every
// checkpoint: the link at each one's seq is there with the same hash. It
// reads one snapshot. Check the chain itself with VerifyAuditChain.
//
// Returns admin_only (403) for a non-admin.
func (s *Service) CheckAnchors(ctx context.Context, a Actor, anchors []Anchor) (AnchorReport, error) {
	if err := requireAdmin(a); err != nil {
		return AnchorReport{}, err
	}
	seqs := make([]int64, len(anchors))
	for i, an := range anchors {
		seqs[i] = an.Seq
	}
	var links []struct {
		Seq  int64  `db:"seq"`
		Hash string `db:"hash"`
	}
	if err := s.db.SelectContext(ctx, &links, `SELECT seq, encode(hash, 'hex') AS hash FROM audit_chain WHERE seq = ANY ($1)`, pq.Array(seqs)); err != nil {
		return AnchorReport{}, errs.Wrap(err, "check anchors")
	}
	have := make(map[int64]string, len(links))
	for _, l := range links {
		have[l.Seq] = l.Hash
	}
	rep := AnchorReport{OK: true}
	for i := range anchors {
		an := anchors[i]
		hash, ok := have[an.Seq]
		switch {
		case !ok:
			rep.OK, rep.Anchor, rep.Problem = false, &an, AnchorTruncated
		case !strings.EqualFold(hash, an.Hash):
			rep.OK, rep.Anchor, rep.Problem = false, &an, AnchorRewritten
		default:
			rep.Checked++
			continue
		}
		return rep, nil
	}
	return rep, nil
}

// VerifyAuditLog verifies the audit chain (VerifyAuditChain), names its
// head, and, given anchorDir, checks that the chain extends every
// checkpoint there (CheckAnchors); OK only if both hold. A directory
// without any checkpoint is an error when required (audit-log verify
// --anchors), else nothing to check (serve's own anchor_dir before its
// first checkpoint).
//
// Returns admin_only (403), or anchor_invalid (422) naming a checkpoint
// that is not one or whose signature does not verify, or the directory
// without any when required.
func (s *Service) VerifyAuditLog(ctx context.Context, a Actor, anchorDir string, required bool) (ChainReport, error) {
	rep, err := s.VerifyAuditChain(ctx, a)
	if err != nil {
		return rep, err
	}
	head, err := s.auditHead(ctx)
	if err != nil {
		return rep, err
	}
	rep.Head = &head
	if anchorDir == "" {
		return rep, nil
	}
	anchors, err := s.ReadAnchors(anchorDir)
	if err != nil {
		if !required {
			if names, _ := filepath.Glob(filepath.Join(anchorDir, "anchor-*.json")); len(names) == 0 {
				return rep, nil
			}
		}
		return rep, errs.E(errs.Unprocessable, "anchor_invalid", err.Error())
	}
	ar, err := s.CheckAnchors(ctx, a, anchors)
	if err != nil {
		return rep, err
	}
	rep.Anchors = &ar
	rep.OK = rep.OK && ar.OK
	return rep, nil
}
