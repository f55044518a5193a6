package bank

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"meridian/pkg/errs"
)

// rewriteChainFrom changes audit row id as the database's owner can, then
// computes every link from it onward again with audit_digest and moves the
// sealer's head: the attack the chain alone cannot see (issue 20).
func rewriteChainFrom(t *testing.T, s *Service, id int64) {
	t.Helper()
	asOwner(t, s,
		`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete`,
		fmt.Sprintf(`UPDATE audit_log SET description = 'Transferred $0.01 (rewritten)' WHERE id = %d`, id),
		`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete`,
		`ALTER TABLE audit_chain DISABLE TRIGGER audit_chain_no_update_delete`,
		fmt.Sprintf(`DO $$
		DECLARE r record; h bytea; start bigint;
		BEGIN
			SELECT seq INTO start FROM audit_chain WHERE audit_id = %d;
			SELECT coalesce((SELECT hash FROM audit_chain WHERE seq = start - 1), '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) INTO h;
			FOR r IN SELECT c.seq, l.id, l.actor_user_id, l.account_number, l.action_type, l.table_name, l.description, l.created_at
				FROM audit_chain c JOIN audit_log l ON l.id = c.audit_id WHERE c.seq >= start ORDER BY c.seq LOOP
				h := audit_digest(h, r.id, r.actor_user_id, r.account_number, r.action_type, r.table_name, r.description, r.created_at);
				UPDATE audit_chain SET hash = h WHERE seq = r.seq;
			END LOOP;
			UPDATE event_sealer SET audit_hash = h;
		END $$`, id),
		`ALTER TABLE audit_chain ENABLE TRIGGER audit_chain_no_update_delete`)
}

// cutChainEnd removes the newest audit row and its link, as the owner can,
// and steps the sealer's head back onto the link before it.
func cutChainEnd(t *testing.T, s *Service) {
	t.Helper()
	asOwner(t, s,
		`ALTER TABLE audit_chain DISABLE TRIGGER ALL`,
		`ALTER TABLE audit_log DISABLE TRIGGER ALL`,
		`CREATE TEMPORARY TABLE cut AS SELECT seq, audit_id FROM audit_chain ORDER BY seq DESC LIMIT 1`,
		`DELETE FROM audit_chain WHERE seq = (SELECT seq FROM cut)`,
		`DELETE FROM audit_log WHERE id = (SELECT audit_id FROM cut)`,
		`UPDATE event_sealer SET audit_seq = c.seq, audit_hash = c.hash, audit_last_id = c.audit_id
			FROM (SELECT seq, hash, audit_id FROM audit_chain ORDER BY seq DESC LIMIT 1) c`,
		`DROP TABLE cut`,
		`ALTER TABLE audit_log ENABLE TRIGGER ALL`,
		`ALTER TABLE audit_chain ENABLE TRIGGER ALL`)
}

// A checkpoint written outside the database catches what the chain alone
// cannot: a row changed and every link after it computed again (verify
// without the checkpoints says intact), and the newest rows cut with the
// head stepped back. Without the anchors both verify as intact.
func TestAnchorsCatchRewritesAndCuts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		tamper  func(t *testing.T, s *Service, ids []int64)
		problem string
	}{
		{"a row rewritten, the links after it computed again", func(t *testing.T, s *Service, ids []int64) { rewriteChainFrom(t, s, ids[2]) }, AnchorRewritten},
		{"the newest rows cut, through the checkpoint's, the head stepped back", func(t *testing.T, s *Service, ids []int64) {
			for {
				var head int64
				s.db.Get(&head, `SELECT max(seq) FROM audit_chain`)
				if head < int64(len(ids)) { // below the checkpoint's link
					return
				}
				cutChainEnd(t, s)
			}
		}, AnchorTruncated},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, ids := chainWithRows(t)
			dir := t.TempDir()
			a, wrote, err := s.WriteAnchor(ctx, dir)
			if err != nil || !wrote || a.Seq != int64(len(ids)) {
				t.Fatalf("checkpoint %+v %v %v", a, wrote, err)
			}
			// The chain goes on after the checkpoint: still extends it.
			newCustomer(t, s, "Len Later")
			rep, err := s.VerifyAuditLog(ctx, CLIActor, dir, true)
			if err != nil || !rep.OK || rep.Anchors == nil || rep.Anchors.Checked != 1 || rep.Head == nil || rep.Head.Seq <= a.Seq {
				t.Fatalf("before tampering: %+v %v", rep, err)
			}

			c.tamper(t, s, ids)
			plain, err := s.VerifyAuditChain(ctx, CLIActor)
			if err != nil || !plain.OK {
				t.Fatalf("the chain alone should not see this (the test's premise): %+v %v", plain, err)
			}
			rep, err = s.VerifyAuditLog(ctx, CLIActor, dir, true)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.Anchors == nil || rep.Anchors.OK || rep.Anchors.Problem != c.problem || rep.Anchors.Anchor.Seq != a.Seq {
				t.Fatalf("after tampering: %+v (anchors %+v)", rep, rep.Anchors)
			}
			if !strings.Contains(rep.Sentence(), filepath.Base(a.File)) {
				t.Fatalf("sentence %q does not name the checkpoint", rep.Sentence())
			}
		})
	}
}

// A checkpoint is written only when the head moved, whole; its signature is
// checked with the anchor key: a changed checkpoint, or one signed with
// another key, is refused by name.
func TestAnchorFiles(t *testing.T) {
	t.Parallel()
	s, _ := chainWithRows(t)
	dir := t.TempDir()
	first, wrote, err := s.WriteAnchor(ctx, dir)
	if err != nil || !wrote {
		t.Fatalf("first: %v %v", wrote, err)
	}
	if _, wrote, err := s.WriteAnchor(ctx, dir); err != nil || wrote {
		t.Fatalf("an idle chain wrote a second checkpoint (%v %v)", wrote, err)
	}
	newCustomer(t, s, "Ada Again")
	second, wrote, err := s.WriteAnchor(ctx, dir)
	if err != nil || !wrote || second.Seq <= first.Seq {
		t.Fatalf("second: %+v %v %v", second, wrote, err)
	}
	got, err := s.ReadAnchors(dir)
	if err != nil || len(got) != 2 || got[0].Seq != first.Seq || got[1].Seq != second.Seq {
		t.Fatalf("read %+v %v", got, err)
	}
	if fi, err := os.Stat(first.File); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("checkpoint file %v %v", fi, err)
	}

	// Changed by hand: the signature no longer verifies.
	b, _ := os.ReadFile(first.File)
	forged := strings.Replace(string(b), first.Hash, strings.Repeat("0", 64), 1)
	if err := os.WriteFile(first.File, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadAnchors(dir); err == nil || !strings.Contains(err.Error(), filepath.Base(first.File)) {
		t.Fatalf("a forged checkpoint: %v", err)
	}
	_, err = s.VerifyAuditLog(ctx, CLIActor, dir, true)
	wantKind(t, err, errs.Unprocessable, "anchor_invalid")

	// Another key (anchor_key) cannot read this one's checkpoints.
	other := New(s.db, s.tokens, Settings{AnchorKey: strings.Repeat("k", 32)})
	if _, err := other.ReadAnchors(filepath.Dir(second.File)); err == nil {
		t.Fatal("checkpoints verified under another key")
	}

	// --anchors on an empty directory is an error; serve's own, not yet
	// written, is nothing to check.
	empty := t.TempDir()
	_, err = s.VerifyAuditLog(ctx, CLIActor, empty, true)
	wantKind(t, err, errs.Unprocessable, "anchor_invalid")
	if rep, err := s.VerifyAuditLog(ctx, CLIActor, empty, false); err != nil || !rep.OK || rep.Anchors != nil {
		t.Fatalf("serve's empty anchor_dir: %+v %v", rep, err)
	}
}

// serve writes checkpoints by itself, every anchor_interval.
func TestRunAnchors(t *testing.T) {
	t.Parallel()
	s, _ := chainWithRows(t)
	dir := t.TempDir()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { s.RunAnchors(cctx, 20*time.Millisecond, dir, nil); close(done) }()
	defer func() { cancel(); <-done }()
	files := func() int {
		names, _ := filepath.Glob(filepath.Join(dir, "anchor-*.json"))
		return len(names)
	}
	waitFiles := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); files() < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d checkpoints written, want %d", files(), n)
			}
		}
	}
	waitFiles(1)
	// An unchanged chain gets no new checkpoint.
	time.Sleep(100 * time.Millisecond)
	if n := files(); n != 1 {
		t.Fatalf("%d checkpoints of an unchanged chain", n)
	}
	newCustomer(t, s, "Rob Runner") // the chain grows: another checkpoint (or one per row it grew by)
	waitFiles(2)
}
